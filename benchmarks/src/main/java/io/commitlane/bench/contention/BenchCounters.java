package io.commitlane.bench.contention;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.bench.harness.WorkerGroup;
import io.commitlane.storage.Transaction;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code conflict} scenario's workload and check: each commit increments {@code keys} counters
 * (8-byte longs) read through the transaction, so its conflicts are real; afterwards the counters
 * must sum to the increments committed, or an update was lost.
 */
final class BenchCounters {
  private BenchCounters() {}

  static WorkerGroup.TransactionMaker readModifyWrite(int keys, int keySpace) {
    return (db, random, value) -> {
      Transaction t = db.begin();
      for (int i = 0; i < keys; i++) {
        byte[] k = WorkerGroup.key(random.nextInt(keySpace));
        byte[] old = t.get(k);
        t.put(k, ByteBuffer.allocate(8).putLong((old == null ? 0 : ByteBuffer.wrap(old).getLong()) + 1).array());
      }
      return t;
    };
  }

  /**
   * Adds the lost updates to {@code result} and its summary, and fails if the counters of {@code db}
   * do not sum to what {@code groups} committed.
   */
  static void check(Map<String, Object> result, List<WorkerGroup> groups, CommitlaneDatabase db, BenchShape shape) {
    long committed = groups.stream().mapToLong(WorkerGroup::commitsSoFar).sum();
    long sum = counterSum(db, shape.keySpace());
    long expected = committed * shape.keys();
    result.put("lostUpdates", expected - sum);
    result.put("summary", result.get("summary") + String.format(Locale.ROOT, "; counters: %,d increments committed, sum %,d: %s",
        expected, sum, expected == sum ? "no lost update" : (expected - sum) + " LOST"));
    if (expected != sum) {
      throw new IllegalStateException("lost updates: " + expected + " increments committed, counters sum to " + sum);
    }
  }

  private static long counterSum(CommitlaneDatabase db, int keySpace) {
    long sum = 0;
    Transaction t = db.begin();
    for (int i = 0; i < keySpace; i++) {
      byte[] v = t.getUntracked(WorkerGroup.key(i));
      sum += v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }
    t.abort();
    return sum;
  }
}
