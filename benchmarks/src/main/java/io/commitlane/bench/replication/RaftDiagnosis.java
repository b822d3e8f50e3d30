package io.commitlane.bench.replication;

import io.commitlane.bench.cluster.ShardedWriteLoad;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;

/**
 * {@code replication --diagnose}: for every measured replicated cell of the throughput part,
 * appends to {@code replication-diagnosis.md} what {@link RaftMetricsWindow} saw, per commit: the
 * CPU of each node's threads by role, and every Ratis counter and timer that moved (with the
 * timers' recent means). The raw material for "where does a replicated commit's time go".
 */
final class RaftDiagnosis {
  private final Path file;

  RaftDiagnosis(Path file) throws IOException {
    this.file = file;
    Files.writeString(file, "# Where a replicated commit's time goes (replication --diagnose)\n\n"
        + "Per measured cell: CPU per commit by node and thread role (this JVM's threads; the JIT compiler and the garbage collector are"
        + " not Java threads), then every Ratis counter and timer count that changed in the window, per commit, with the timer's mean."
        + " Counts are exact for the window. Means are not: Ratis's timers keep a sample weighted to the last few minutes, so earlier"
        + " cells weigh in; run one load at a time (--loads) for means that belong to it.\n\n", StandardCharsets.UTF_8);
  }

  void add(ThroughputLoad load, String variant, int round, ShardedWriteLoad.Rates rates, double seconds, ReplicaLoopback replicas,
      RaftMetricsWindow window) throws IOException {
    double commits = Math.max(1, rates.committed() * seconds);
    int leader = replicas.leader();
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "## %s: %s, round %d%n%n%s commits/s, p50 %s µs, p99 %s µs, %,.0f commits in the window; %s leads%n%n",
        load.label(), variant, round + 1, Units.count(rates.committed()), Units.micros(rates.p50Nanos()), Units.micros(rates.p99Nanos()),
        commits, leader < 0 ? "nobody" : replicas.id(leader)));
    MarkdownTable threads = MarkdownTable.of("threads", "CPU µs per commit");
    long total = 0;
    for (Map.Entry<String, Long> e : window.cpuNanos().entrySet()) {
      total += e.getValue();
      threads.row(e.getKey(), String.format(Locale.ROOT, "%.1f", e.getValue() / commits / 1000));
    }
    threads.row("**all Java threads**", String.format(Locale.ROOT, "**%.1f**", total / commits / 1000));
    threads.appendTo(sb).append('\n');
    MarkdownTable ratis = MarkdownTable.of("Ratis metric", "per commit", "mean ms");
    for (Map.Entry<String, Long> e : window.counts().entrySet()) {
      Double mean = window.meansMillis().get(e.getKey());
      ratis.row(e.getKey(), String.format(Locale.ROOT, "%.3f", e.getValue() / commits),
          mean == null ? "" : String.format(Locale.ROOT, "%.3f", mean));
    }
    ratis.appendTo(sb).append('\n');
    Files.writeString(file, sb.toString(), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
  }
}
