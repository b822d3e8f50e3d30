package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Range reads under real concurrency, both validation policies, committed one by one
 * ({@code commitSync}) and in merged write groups, with 16 lock buckets. The assertions hold for
 * every interleaving, so the threads run free (as in {@link DisjointKeysProperties}):
 *
 * <ul>
 *   <li>no phantom: transactions that count a range and insert a new key into it only while the
 *       count is below a cap never leave a range above the cap (the classic write skew that only
 *       range validation prevents: every insert is a key no one else writes);
 *   <li>snapshot-consistent scans: every scan of all accounts during concurrent transfers sums to
 *       the same total;
 *   <li>disjoint ranges never conflict: transactions that scan and write only their own ranges.
 * </ul>
 */
class RangeConcurrencyTest {
  private static final int THREADS = 4;
  private static final int CAP = 5;
  private static final int RANGES = 3;

  @TempDir
  Path dir;

  static Stream<Arguments> settings() {
    return Stream.of(OccValidation.values()).flatMap(p -> Stream.of(Arguments.of(p, false), Arguments.of(p, true)));
  }

  private Database open(OccValidation policy) {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false)
        .withSettings(CommitlaneSettings.defaults().withOccValidation(policy).withOccLockBuckets(16)));
  }

  @ParameterizedTest(name = "{0}, groups {1}")
  @MethodSource("settings")
  void countingAndInsertingNeverExceedsTheCap(OccValidation policy, boolean groups) throws Exception {
    try (Database db = open(policy)) {
      AtomicLong ids = new AtomicLong();
      runThreads(THREADS, thread -> {
        Random random = new Random(thread);
        for (int round = 0; round < 150; round++) {
          int members = groups ? 1 + random.nextInt(3) : 1;
          List<Transaction> txns = new ArrayList<>();
          for (int m = 0; m < members; m++) {
            KeyRange range = KeyRange.prefix(of("r" + random.nextInt(RANGES) + "/"));
            Transaction t = db.begin();
            long n = random.nextBoolean() ? t.count(range) : t.list(range.keysOnly()).size();
            assertTrue(n <= CAP, "a snapshot showed " + n + " keys in " + range);
            if (n < CAP) {
              byte[] prefix = range.lowerBound();
              t.put(concat(prefix, of("k" + ids.incrementAndGet())), of("x"));
            }
            txns.add(t);
          }
          commit(db, txns);
        }
      });
      long total = 0;
      for (int r = 0; r < RANGES; r++) {
        long n = db.count(KeyRange.prefix(of("r" + r + "/")));
        assertTrue(n <= CAP, "range r" + r + "/ holds " + n + " keys, above the cap of " + CAP);
        total += n;
      }
      assertTrue(total > 0, "nothing was inserted");
    }
  }

  @ParameterizedTest(name = "{0}, groups {1}")
  @MethodSource("settings")
  void everyScanDuringTransfersSeesTheSameTotal(OccValidation policy, boolean groups) throws Exception {
    int accounts = 8;
    try (Database db = open(policy)) {
      for (int a = 0; a < accounts; a++) {
        db.put(of("acct/" + a), Bytes.ofLong(100));
      }
      KeyRange all = KeyRange.prefix(of("acct/"));
      runThreads(THREADS, thread -> {
        Random random = new Random(thread);
        for (int round = 0; round < 300; round++) {
          if (thread % 2 == 0) {
            int members = groups ? 1 + random.nextInt(3) : 1;
            List<Transaction> txns = new ArrayList<>();
            for (int m = 0; m < members; m++) {
              Transaction t = db.begin();
              byte[] from = of("acct/" + random.nextInt(accounts));
              byte[] to = of("acct/" + random.nextInt(accounts));
              long amount = random.nextInt(10);
              t.put(from, Bytes.ofLong(Bytes.toLong(t.get(from)) - amount));
              t.put(to, Bytes.ofLong(Bytes.toLong(t.get(to)) + amount));
              txns.add(t);
            }
            commit(db, txns);
          } else if (round % 2 == 0) {
            assertEquals(100L * accounts, sum(db.list(all)), "a database scan");
            assertEquals(100L * accounts, sum(db.scan(all.reverse()).toList()), "a reverse database scan");
          } else {
            try (Transaction t = db.begin()) {
              assertEquals(100L * accounts, sum(t.list(all)), "a transaction's scan");
              List<byte[]> keys = new ArrayList<>();
              for (int a = 0; a < accounts; a++) {
                keys.add(of("acct/" + a));
              }
              assertEquals(100L * accounts, t.multiGet(keys).stream().mapToLong(Bytes::toLong).sum(), "a multiGet");
            }
          }
        }
      });
      assertEquals(100L * accounts, sum(db.list(all)));
    }
  }

  @ParameterizedTest(name = "{0}, groups {1}")
  @MethodSource("settings")
  void disjointRangesNeverConflict(OccValidation policy, boolean groups) throws Exception {
    try (Database db = open(policy)) {
      runThreads(THREADS, thread -> {
        Random random = new Random(thread);
        for (int round = 0; round < 200; round++) {
          int members = groups ? 1 + random.nextInt(3) : 1;
          List<Transaction> txns = new ArrayList<>();
          for (int m = 0; m < members; m++) {
            String own = "t" + thread + "/m" + m + "/";
            Transaction t = db.begin();
            KeyRange range = KeyRange.prefix(of(own));
            long n = random.nextBoolean() ? t.count(range) : t.list(range.reverse().limit(2)).size();
            t.put(of(own + round), of("v" + n));
            if (random.nextInt(4) == 0) {
              t.remove(of(own + (round / 2)));
            }
            txns.add(t);
          }
          if (random.nextInt(5) == 0) {
            db.put(of("t" + thread + "/plain/" + round), of("p"));
          }
          commit(db, txns);
        }
      });
      assertEquals(0, db.stats().conflicts(), "disjoint ranges conflicted");
      assertEquals(0, db.stats().conservativeConflicts());
    }
  }

  /** Commit alone or as one merged group; a conflict is fine (the cap is the property), anything else fails. */
  private static void commit(Database db, List<Transaction> txns) {
    if (txns.size() == 1) {
      try {
        txns.get(0).commitSync();
      } catch (ConflictException e) {
        // retried by the next round
      }
      return;
    }
    GroupResult r = db.commitGroup(txns);
    for (int i = 0; i < txns.size(); i++) {
      if (!r.isCommitted(i)) {
        assertInstanceOf(ConflictException.class, r.failure(i));
      }
    }
  }

  private static long sum(List<KeyValue> kvs) {
    return kvs.stream().mapToLong(kv -> Bytes.toLong(kv.value())).sum();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  interface Body {
    void run(int thread) throws Exception;
  }

  private static void runThreads(int n, Body body) throws Exception {
    CyclicBarrier start = new CyclicBarrier(n);
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int thread = i;
      Thread t = new Thread(() -> {
        try {
          start.await();
          body.run(thread);
        } catch (Throwable e) {
          failures.add(e);
        }
      }, "range-" + i);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    if (!failures.isEmpty()) {
      AssertionError e = new AssertionError(failures.size() + " thread(s) failed; the first: " + failures.get(0), failures.get(0));
      failures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
  }
}
