package io.commitlane.bench.replication;

import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.report.Units;
import io.commitlane.replication.ReplicaStatus;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Part 4 of {@code replication}: the Raft log's size under a sustained load (8 clients x 8 in
 * flight, on every node), sampled on every node every few seconds: the bytes of its log
 * directory, and its applied, snapshot and log start indexes. Snapshots every {@code
 * snapshotEveryEntries} entries let each replica purge its log, so its size should rise and fall
 * within a bound instead of growing with the number of commits.
 */
final class ReplicationSoak {
  private static final Duration DRAIN = Duration.ofSeconds(60);

  /** One node at one time (seconds since the load started). */
  record Sample(double atSeconds, String node, long logBytes, long appliedIndex, long snapshotIndex, long logStartIndex) {
    /** Entries its log holds: from its start to the last applied one (entries not applied yet are few); 0 while it is empty (start -1). */
    long entries() {
      return logStartIndex < 0 ? 0 : Math.max(0, appliedIndex - logStartIndex + 1);
    }
  }

  /** What one node did over the soak, and whether its log stayed bounded. */
  record NodeSummary(String node, long maxBytes, long endBytes, long maxEntries, long endEntries, int purges, long lastSnapshot, String verdict,
      boolean bounded) {}

  record Result(double seconds, long commits, long failures, List<Sample> samples, List<NodeSummary> nodes) {
    double commitsPerSecond() {
      return commits / seconds;
    }
  }

  /**
   * The rule: the log was purged at least twice (so the steady state recurred), and its largest
   * size in the second half of the soak is at most 1.25x its largest in the first half plus one
   * log segment (purges drop whole segments).
   */
  static final String RULE = "purged at least twice, and the largest size in the second half at most 1.25x the largest in the first half"
      + " plus one log segment";

  private final double seconds;
  private final double every;

  ReplicationSoak(double seconds, double sampleSeconds) {
    this.seconds = seconds;
    this.every = sampleSeconds;
  }

  /** Runs the load for the soak's length, sampling into {@code samples} as it goes (a stop keeps what was sampled). */
  Result measure(ReplicaLoopback cluster, long segmentBytes, List<Sample> samples, PrintStream out) throws Exception {
    cluster.awaitLeader(DRAIN);
    long commits;
    long failures;
    long start;
    double elapsed;
    try (ReplicatedWriteLoad load = new ReplicatedWriteLoad(cluster, ReplicatedWriteLoad.spread(8, cluster.size(), -1), 8, Long.MAX_VALUE)) {
      start = System.nanoTime();
      load.start();
      long end = start + (long) (seconds * 1e9);
      try {
        for (int tick = 0; ; tick++) {
          long at = Math.min(end, start + (long) (tick * every * 1e9));
          ContentionRunner.pause(Math.max(0, (at - System.nanoTime()) / 1e9));
          double t = (System.nanoTime() - start) / 1e9;
          List<Sample> now = sample(cluster, t);
          samples.addAll(now);
          out.printf(Locale.ROOT, "  soak %6.1f s  %9s commits/s so far  log %s%n", t, Units.count(load.committed() / Math.max(t, 1e-9)),
              String.join(", ", now.stream().map(s -> s.node() + " " + Units.bytes(s.logBytes()) + " (" + s.entries() + " entries from "
                  + s.logStartIndex() + ")").toList()));
          if (at >= end) {
            break;
          }
        }
      } finally {
        elapsed = (System.nanoTime() - start) / 1e9;
        commits = load.committed();
        failures = load.failed();
        load.stop(DRAIN);
      }
    }
    return new Result(elapsed, commits, failures, List.copyOf(samples), summarize(samples, elapsed, segmentBytes));
  }

  private static List<Sample> sample(ReplicaLoopback cluster, double t) {
    List<Sample> now = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      ReplicaStatus s = cluster.status(i);
      if (s != null) {
        now.add(new Sample(t, cluster.id(i), cluster.raftLogBytes(i), s.appliedIndex(), s.snapshotIndex(), s.logStartIndex()));
      }
    }
    return now;
  }

  /** Per node: max and end, purges, and the verdict by {@link #RULE}. */
  static List<NodeSummary> summarize(List<Sample> samples, double seconds, long segmentBytes) {
    List<String> nodes = samples.stream().map(Sample::node).distinct().toList();
    List<NodeSummary> out = new ArrayList<>();
    for (String node : nodes) {
      List<Sample> mine = samples.stream().filter(s -> s.node().equals(node)).toList();
      Sample last = mine.get(mine.size() - 1);
      long maxBytes = mine.stream().mapToLong(Sample::logBytes).max().orElse(0);
      long maxEntries = mine.stream().mapToLong(Sample::entries).max().orElse(0);
      int purges = 0;
      for (int i = 1; i < mine.size(); i++) {
        long before = mine.get(i - 1).logStartIndex();
        purges += before >= 0 && mine.get(i).logStartIndex() > before ? 1 : 0; // -1 to 0 is the first entry, not a purge
      }
      long firstHalf = mine.stream().filter(s -> s.atSeconds() <= seconds / 2).mapToLong(Sample::logBytes).max().orElse(0);
      long secondHalf = mine.stream().filter(s -> s.atSeconds() > seconds / 2).mapToLong(Sample::logBytes).max().orElse(0);
      boolean bounded = purges >= 2 && secondHalf <= 1.25 * firstHalf + segmentBytes;
      String verdict;
      if (purges < 2) {
        verdict = "not shown: purged " + purges + " time" + (purges == 1 ? "" : "s") + " (run longer, or lower --snapshot-every)";
      } else if (bounded) {
        verdict = "bounded: purged " + purges + " times; largest " + Units.bytes(secondHalf) + " in the second half against "
            + Units.bytes(firstHalf) + " in the first";
      } else {
        verdict = "**growing**: largest " + Units.bytes(secondHalf) + " in the second half against " + Units.bytes(firstHalf) + " in the first";
      }
      out.add(new NodeSummary(node, maxBytes, last.logBytes(), maxEntries, last.entries(), purges, last.snapshotIndex(), verdict, bounded));
    }
    return out;
  }
}
