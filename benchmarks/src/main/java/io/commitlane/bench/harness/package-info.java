/**
 * The measuring machinery every subcommand shares: {@link io.commitlane.bench.harness.ContentionRunner} (one variant
 * under one load on a fresh database, warm-up then a timed window), its asynchronous counterpart, worker groups and
 * tallies, the window listeners (CPU, dispatcher probe), statistics ({@link io.commitlane.bench.harness.Spread}), Ctrl-C
 * ({@link io.commitlane.bench.harness.StopSignal}), progress lines, child JVMs ({@link io.commitlane.bench.harness.HostProcess})
 * and the benchmarks' actor system.
 */
package io.commitlane.bench.harness;
