/**
 * {@code ./commitlane strain}: {@link io.commitlane.bench.strain.StrainCommand}, commits under compaction debt on a
 * bulk-loaded dataset.
 */
package io.commitlane.bench.strain;
