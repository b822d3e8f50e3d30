package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Random transactions over a few keys, interleaved step by step on one thread, under both
 * validation policies, both blind-write settings and bucket counts from 16 (many collisions) to
 * 65,536, committed one by one or gathered into merged write groups. Every history that commits
 * must equal running the committed transactions one at a time in commit order: each read sees
 * what the serial run would show it, and the final values match.
 */
class SerializabilityProperties {
  private static final int KEYS = 3;
  private static Path root;
  private static final Map<String, Database> DATABASES = new HashMap<>();
  private static int run;

  /** A read of a key, or a write of (sum of everything read so far + a constant). */
  record Op(boolean write, int key, int constant) {}

  /** {@code groupSize} 1 commits each transaction alone; more gathers finished ones into groups of up to that many. */
  record Scenario(List<List<Op>> transactions, List<Integer> schedule, OccValidation policy, int buckets, BlindWrites blindWrites,
      int groupSize) {}

  @BeforeContainer
  static void openRoot() throws IOException {
    root = Files.createTempDirectory("commitlane-serializability");
  }

  @AfterContainer
  static void closeAll() throws IOException {
    DATABASES.values().forEach(Database::close);
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Property(tries = 600)
  void committedHistoriesAreSerializableInCommitOrder(@ForAll("scenarios") Scenario s) {
    Database db = DATABASES.computeIfAbsent(s.policy() + "-" + s.buckets() + "-" + s.blindWrites(), name -> Database.open(root.resolve(name),
        DatabaseOptions.defaults().withWal(false).withSettings(CommitlaneSettings.defaults().withOccValidation(s.policy())
            .withOccLockBuckets(s.buckets()).withOccBlindWrites(s.blindWrites()))));
    String prefix = "run" + (run++) + "/";
    int n = s.transactions().size();
    List<Transaction> txns = new ArrayList<>();
    int[] next = new int[n];
    long[] readSum = new long[n];
    List<List<Long>> observed = new ArrayList<>();
    long[] version = new long[n];
    boolean[] done = new boolean[n];
    List<Integer> pending = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      txns.add(db.begin());
      observed.add(new ArrayList<>());
    }
    // Follow the schedule; then finish whatever it left unfinished, in index order.
    List<Integer> steps = new ArrayList<>(s.schedule());
    for (int i = 0; i < n; i++) {
      for (int k = 0; k <= s.transactions().get(i).size(); k++) {
        steps.add(i);
      }
    }
    for (int i : steps) {
      if (done[i]) {
        continue;
      }
      List<Op> ops = s.transactions().get(i);
      Transaction t = txns.get(i);
      if (next[i] < ops.size()) {
        Op op = ops.get(next[i]++);
        byte[] key = Bytes.of(prefix + op.key());
        if (op.write()) {
          t.put(key, Bytes.ofLong(readSum[i] + op.constant()));
        } else {
          long v = Bytes.toLong(t.get(key));
          observed.get(i).add(v);
          readSum[i] += v;
        }
      } else {
        done[i] = true;
        pending.add(i);
        if (pending.size() >= s.groupSize()) {
          commit(db, txns, pending, version);
        }
      }
    }
    commit(db, txns, pending, version);

    // Replay the committed transactions serially, in version (commit) order.
    long[] model = new long[KEYS];
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (version[i] >= 0) {
        order.add(i);
      }
    }
    order.sort(Comparator.comparingLong(i -> version[i]));
    for (int i : order) {
      long[] local = model.clone();
      long sum = 0;
      List<Long> reads = new ArrayList<>();
      for (Op op : s.transactions().get(i)) {
        if (op.write()) {
          local[op.key()] = sum + op.constant();
        } else {
          reads.add(local[op.key()]);
          sum += local[op.key()];
        }
      }
      assertEquals(reads, observed.get(i), "transaction " + i + " read values no serial order gives it; order " + order);
      model = local;
    }
    for (int k = 0; k < KEYS; k++) {
      assertEquals(model[k], Bytes.toLong(db.get(Bytes.of(prefix + k))), "final value of key " + k);
    }
  }

  /** Commit the pending transactions, alone or as one merged group; a conflict marks a version of -1. */
  private static void commit(Database db, List<Transaction> txns, List<Integer> pending, long[] version) {
    if (pending.size() == 1) {
      int i = pending.get(0);
      try {
        version[i] = txns.get(i).commitSync().version();
      } catch (ConflictException e) {
        version[i] = -1;
      }
    } else if (pending.size() > 1) {
      GroupResult r = db.commitGroup(pending.stream().map(txns::get).toList());
      for (int m = 0; m < pending.size(); m++) {
        if (r.isCommitted(m)) {
          version[pending.get(m)] = r.result(m).version();
        } else {
          assertInstanceOf(ConflictException.class, r.failure(m));
          version[pending.get(m)] = -1;
        }
      }
    }
    pending.clear();
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Op> op = Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(0, KEYS - 1),
        Arbitraries.integers().between(1, 100)).as(Op::new);
    Arbitrary<List<List<Op>>> txns = op.list().ofMinSize(1).ofMaxSize(4).list().ofMinSize(2).ofMaxSize(5);
    return txns.flatMap(ts -> Combinators.combine(
        Arbitraries.integers().between(0, ts.size() - 1).list().ofMaxSize(30),
        Arbitraries.of(OccValidation.values()),
        Arbitraries.of(16, 1024, 65_536),
        Arbitraries.of(BlindWrites.values()),
        Arbitraries.of(1, 1, 2, 3))
        .as((schedule, policy, buckets, blind, groupSize) -> new Scenario(ts, schedule, policy, buckets, blind, groupSize)));
  }
}
