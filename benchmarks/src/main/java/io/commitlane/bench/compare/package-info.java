/**
 * {@code ./commitlane compare} (the default job): {@link io.commitlane.bench.compare.CompareCommand}, its cells
 * ({@link io.commitlane.bench.compare.Comparison}) and its report.
 */
package io.commitlane.bench.compare;
