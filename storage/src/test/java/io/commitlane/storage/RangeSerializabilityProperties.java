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
import java.util.TreeMap;
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
 * Transactions that scan ranges (tracked, with limits, in both directions), read keys, insert,
 * overwrite and remove keys, interleaved step by step on one thread, under both validation
 * policies, 16 and 65,536 buckets, committed one by one or in merged write groups. Every history
 * that commits must equal running the committed transactions one at a time in commit (version)
 * order: each scan shows what the serial run would show it (no phantom, no missing key), and the
 * final contents match.
 */
class RangeSerializabilityProperties {
  private static final int KEYS = 6;
  private static Path root;
  private static final Map<String, Database> DATABASES = new HashMap<>();
  private static int run;

  enum Kind { SCAN, GET, PUT, REMOVE }

  /** SCAN uses key..key2 (half-open), reverse and limit; PUT writes (sum of what was read so far + constant). */
  record Op(Kind kind, int key, int key2, boolean reverse, int limit, int constant) {}

  record Scenario(List<List<Op>> transactions, List<Integer> schedule, OccValidation policy, int buckets, int groupSize) {}

  @BeforeContainer
  static void openRoot() throws IOException {
    root = Files.createTempDirectory("commitlane-range-serializability");
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

  @Property(tries = 500)
  void committedHistoriesWithScansAreSerializableInCommitOrder(@ForAll("scenarios") Scenario s) {
    Database db = DATABASES.computeIfAbsent(s.policy() + "-" + s.buckets(), name -> Database.open(root.resolve(name),
        DatabaseOptions.defaults().withWal(false).withSettings(CommitlaneSettings.defaults().withOccValidation(s.policy())
            .withOccLockBuckets(s.buckets()))));
    String prefix = "run" + (run++) + "/";
    // Half the keys exist before the transactions start.
    for (int k = 0; k < KEYS; k += 2) {
      db.put(key(prefix, k), Bytes.ofLong(k + 1));
    }
    int n = s.transactions().size();
    List<Transaction> txns = new ArrayList<>();
    int[] next = new int[n];
    long[] readSum = new long[n];
    List<List<String>> observed = new ArrayList<>();
    long[] version = new long[n];
    boolean[] done = new boolean[n];
    List<Integer> pending = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      txns.add(db.begin());
      observed.add(new ArrayList<>());
    }
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
      if (next[i] < ops.size()) {
        Op op = ops.get(next[i]++);
        readSum[i] += apply(new DbView(txns.get(i), prefix), op, readSum[i], observed.get(i));
      } else {
        done[i] = true;
        pending.add(i);
        if (pending.size() >= s.groupSize()) {
          commit(db, txns, pending, version);
        }
      }
    }
    commit(db, txns, pending, version);

    TreeMap<Integer, Long> model = new TreeMap<>();
    for (int k = 0; k < KEYS; k += 2) {
      model.put(k, (long) k + 1);
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (version[i] >= 0) {
        order.add(i);
      }
    }
    order.sort(Comparator.comparingLong(i -> version[i]));
    for (int i : order) {
      TreeMap<Integer, Long> local = new TreeMap<>(model);
      List<String> seen = new ArrayList<>();
      long sum = 0;
      for (Op op : s.transactions().get(i)) {
        sum += apply(new ModelView(local), op, sum, seen);
      }
      assertEquals(seen, observed.get(i), "transaction " + i + " saw what no serial order shows it; order " + order);
      model = local;
    }
    TreeMap<Integer, Long> stored = new TreeMap<>();
    for (KeyValue kv : db.list(KeyRange.prefix(Bytes.of(prefix)))) {
      stored.put(Integer.parseInt(Bytes.str(kv.key()).substring(prefix.length() + 1)), Bytes.toLong(kv.value()));
    }
    assertEquals(model, stored, "final contents");
  }

  /** The same operations against the database or the model; returns what the op adds to the read sum. */
  interface View {
    List<Map.Entry<Integer, Long>> scan(int from, int to, boolean reverse, int limit);

    Long get(int k);

    void put(int k, long v);

    void remove(int k);
  }

  private static long apply(View v, Op op, long readSum, List<String> seen) {
    switch (op.kind()) {
      case SCAN -> {
        long sum = 0;
        StringBuilder b = new StringBuilder("scan");
        for (Map.Entry<Integer, Long> e : v.scan(op.key(), op.key2(), op.reverse(), op.limit())) {
          b.append(' ').append(e.getKey()).append('=').append(e.getValue());
          sum += e.getValue();
        }
        seen.add(b.toString());
        return sum;
      }
      case GET -> {
        Long value = v.get(op.key());
        seen.add("get " + op.key() + "=" + value);
        return value == null ? 0 : value;
      }
      case PUT -> v.put(op.key(), readSum + op.constant());
      case REMOVE -> v.remove(op.key());
    }
    return 0;
  }

  record DbView(Transaction txn, String prefix) implements View {
    @Override
    public List<Map.Entry<Integer, Long>> scan(int from, int to, boolean reverse, int limit) {
      KeyRange r = KeyRange.between(key(prefix, from), key(prefix, to));
      r = reverse ? r.reverse() : r;
      r = limit > 0 ? r.limit(limit) : r;
      List<Map.Entry<Integer, Long>> out = new ArrayList<>();
      for (KeyValue kv : txn.list(r)) {
        out.add(Map.entry(Integer.parseInt(Bytes.str(kv.key()).substring(prefix.length() + 1)), Bytes.toLong(kv.value())));
      }
      return out;
    }

    @Override
    public Long get(int k) {
      byte[] v = txn.get(key(prefix, k));
      return v == null ? null : Bytes.toLong(v);
    }

    @Override
    public void put(int k, long v) {
      txn.put(key(prefix, k), Bytes.ofLong(v));
    }

    @Override
    public void remove(int k) {
      txn.remove(key(prefix, k));
    }
  }

  record ModelView(TreeMap<Integer, Long> map) implements View {
    @Override
    public List<Map.Entry<Integer, Long>> scan(int from, int to, boolean reverse, int limit) {
      var sub = map.subMap(from, true, to, false);
      List<Map.Entry<Integer, Long>> out = new ArrayList<>();
      for (Map.Entry<Integer, Long> e : (reverse ? sub.descendingMap() : sub).entrySet()) {
        if (limit > 0 && out.size() == limit) {
          break;
        }
        out.add(Map.entry(e.getKey(), e.getValue()));
      }
      return out;
    }

    @Override
    public Long get(int k) {
      return map.get(k);
    }

    @Override
    public void put(int k, long v) {
      map.put(k, v);
    }

    @Override
    public void remove(int k) {
      map.remove(k);
    }
  }

  private static byte[] key(String prefix, int k) {
    return Bytes.of(prefix + "k" + k); // single digits: byte order is numeric order
  }

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
    Arbitrary<Op> scan = Combinators.combine(Arbitraries.integers().between(0, KEYS), Arbitraries.integers().between(0, KEYS),
        Arbitraries.of(true, false), Arbitraries.of(0, 0, 1, 2))
        .as((a, b, rev, limit) -> new Op(Kind.SCAN, Math.min(a, b), Math.max(a, b), rev, limit, 0));
    Arbitrary<Op> point = Combinators.combine(Arbitraries.of(Kind.GET, Kind.PUT, Kind.PUT, Kind.REMOVE),
        Arbitraries.integers().between(0, KEYS - 1), Arbitraries.integers().between(1, 100))
        .as((kind, k, c) -> new Op(kind, k, 0, false, 0, c));
    Arbitrary<Op> op = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(2, scan), net.jqwik.api.Tuple.of(3, point));
    Arbitrary<List<List<Op>>> txns = op.list().ofMinSize(1).ofMaxSize(4).list().ofMinSize(2).ofMaxSize(5);
    return txns.flatMap(ts -> Combinators.combine(
        Arbitraries.integers().between(0, ts.size() - 1).list().ofMaxSize(30),
        Arbitraries.of(OccValidation.values()),
        Arbitraries.of(16, 65_536),
        Arbitraries.of(1, 1, 2, 3))
        .as((schedule, policy, buckets, groupSize) -> new Scenario(ts, schedule, policy, buckets, groupSize)));
  }
}
