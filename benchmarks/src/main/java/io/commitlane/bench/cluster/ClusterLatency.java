package io.commitlane.bench.cluster;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.Mutation;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import io.commitlane.cluster.DatabaseSharding;
import io.commitlane.storage.Transaction;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * The latency scenario: one caller on node 1 of the three-node cluster with one 1-key commit in
 * flight, through the facade (no sharding), through sharding to an owner on the same node, and
 * through sharding to an owner on another node (the remote hop); rotated, {@code runs} rounds.
 */
final class ClusterLatency {
  private final int runs;
  private final double warmup;
  private final double seconds;

  ClusterLatency(int runs, double warmup, double seconds) {
    this.runs = runs;
    this.warmup = warmup;
    this.seconds = seconds;
  }

  /** Prints each measurement and returns the table; the facade's database goes in {@code facadeDir}. */
  String measure(List<ActorSystem<Void>> three, Path facadeDir) throws Exception {
    DatabaseSharding client = DatabaseSharding.init(three.get(0));
    String local = null;
    String remote = null;
    for (int i = 0; local == null || remote == null; i++) {
      String db = "latency-" + i;
      DatabaseStats st = (DatabaseStats) client.stats(db).toCompletableFuture().get(60, TimeUnit.SECONDS);
      boolean here = st.owner().equals(Cluster.get(three.get(0)).selfMember().address().toString());
      if (here && local == null) {
        local = db;
      } else if (!here && remote == null) {
        remote = db;
      }
    }
    CommitlaneDatabase facade = Commitlane.get(three.get(0)).open(facadeDir);
    Map<String, List<double[]>> results = new LinkedHashMap<>();
    String facadeName = "facade commit on the same node (no sharding)";
    String localName = "sharded, owner on the same node";
    String remoteName = "sharded, owner on another node (remote hop)";
    List<String> names = List.of(facadeName, localName, remoteName);
    names.forEach(n -> results.put(n, new ArrayList<>()));
    try {
      for (int r = 0; r < runs; r++) {
        for (int i = 0; i < names.size(); i++) {
          String name = names.get((i + r) % names.size());
          String db = name.equals(localName) ? local : remote;
          double[] m = name.equals(facadeName) ? oneCaller(() -> commitOnFacade(facade)) : oneCaller(() -> commitSharded(client, db));
          results.get(name).add(m);
          System.out.printf(Locale.ROOT, "  latency run %d  %-46s p50 %8s us  p99 %8s us  %8s commits/s%n", r + 1, name,
              Units.micros(m[0]), Units.micros(m[1]), Units.count(m[2]));
        }
      }
    } finally {
      facade.close();
    }
    StringBuilder t = new StringBuilder("One caller, one 1-key commit in flight, client on node 1 of 3:\n\n");
    MarkdownTable table = MarkdownTable.of("path", "p50 µs median [range]", "p99 µs median [range]", "commits/s median");
    for (String name : names) {
      List<double[]> m = results.get(name);
      Spread p50 = Spread.of(m.stream().map(x -> x[0] / 1000).toList());
      Spread p99 = Spread.of(m.stream().map(x -> x[1] / 1000).toList());
      table.row(name, micro(p50), micro(p99), Units.count(Spread.of(m.stream().map(x -> x[2]).toList()).median()));
    }
    return table.appendTo(t).toString();
  }

  private static String micro(Spread s) {
    return String.format(Locale.ROOT, "%.1f [%.1f-%.1f]", s.median(), s.min(), s.max());
  }

  private static void commitOnFacade(CommitlaneDatabase db) throws Exception {
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    Transaction txn = db.begin();
    byte[] value = new byte[ShardedWriteLoad.VALUE_BYTES];
    rnd.nextBytes(value);
    txn.put(ByteBuffer.allocate(8).putLong(rnd.nextInt(ShardedWriteLoad.KEY_SPACE)).array(), value);
    db.commit(txn).toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static void commitSharded(DatabaseSharding client, String db) throws Exception {
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    byte[] value = new byte[ShardedWriteLoad.VALUE_BYTES];
    rnd.nextBytes(value);
    CompletionStage<DatabaseProtocol.WriteReply> s = client.write(db,
        List.of(Mutation.put(ByteBuffer.allocate(8).putLong(rnd.nextInt(ShardedWriteLoad.KEY_SPACE)).array(), value)));
    DatabaseProtocol.WriteReply reply = s.toCompletableFuture().get(30, TimeUnit.SECONDS);
    if (!(reply instanceof DatabaseProtocol.Committed)) {
      throw new IllegalStateException("commit to " + db + " failed: " + reply);
    }
  }

  private interface Op {
    void run() throws Exception;
  }

  /** One caller, one commit at a time: {p50 ns, p99 ns, commits/s} over the measured seconds. */
  private double[] oneCaller(Op op) throws Exception {
    long warmEnd = System.nanoTime() + (long) (warmup * 1e9);
    while (System.nanoTime() < warmEnd) {
      op.run();
    }
    Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(30), 3);
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    long n = 0;
    for (long t0 = System.nanoTime(); t0 < end; t0 = System.nanoTime()) {
      op.run();
      h.recordValue(Math.min(System.nanoTime() - t0, h.getHighestTrackableValue()));
      n++;
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    return new double[] {h.getValueAtPercentile(50), h.getValueAtPercentile(99), n / elapsed};
  }
}
