/**
 * {@code ./commitlane bench}: one scenario of the upstream contention benchmark; entry
 * {@link io.commitlane.bench.contention.BenchCommand}, one {@link io.commitlane.bench.contention.BenchScenario} per scenario.
 */
package io.commitlane.bench.contention;
