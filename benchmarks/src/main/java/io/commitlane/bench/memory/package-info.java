/**
 * {@code ./commitlane memory}: {@link io.commitlane.bench.memory.MemoryBench}; each kind is measured in fresh JVMs running
 * {@link io.commitlane.bench.memory.MemoryProbe}.
 */
package io.commitlane.bench.memory;
