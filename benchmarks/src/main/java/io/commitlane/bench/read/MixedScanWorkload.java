package io.commitlane.bench.read;

import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.Variant;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Cursor;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What phantom protection costs: {@value #THREADS} threads commit transactions on one database
 * ({@code commitSync}, WAL off), 80% a read-modify-write of one random key, 20% a scan of 50
 * entries from a random key followed by a write of one random key. Variants: the scans tracked
 * (validated: a later insert or remove inside a scanned interval conflicts), untracked (RocksDB's
 * weaker behaviour), and tracked with each thread confined to its own quarter of the keys
 * (disjoint ranges: no conflict may come from the scans).
 */
final class MixedScanWorkload {
  static final int THREADS = 4;
  private static final int SCAN = 50;

  enum Variant {
    TRACKED("scans tracked"), UNTRACKED("scans untracked"), DISJOINT("scans tracked, disjoint quarters");

    final String label;

    Variant(String label) {
      this.label = label;
    }
  }

  record Result(double commitsPerSecond, double conflictRate) {}

  private final int keys;
  private final byte[] value;

  MixedScanWorkload(int keys, byte[] value) {
    this.keys = keys;
    this.value = value;
  }

  Result run(Variant variant, Path dir, double warmup, double seconds) throws Exception {
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      CommitlaneReadPeer.load(db, keys, value);
      AtomicLongArray counts = new AtomicLongArray(THREADS * 16); // per thread: commits at slot, conflicts at slot + 1
      List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
      CountDownLatch ready = new CountDownLatch(THREADS);
      Running running = new Running();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int slot = t * 16;
        int span = variant == Variant.DISJOINT ? keys / THREADS : keys;
        int base = variant == Variant.DISJOINT ? t * span : 0;
        SplittableRandom random = new SplittableRandom(0xC0FFEE + t);
        threads.add(new Thread(() -> {
          ready.countDown();
          try {
            while (running.on) {
              boolean ok = commit(db, variant, random, base, span);
              counts.lazySet(ok ? slot : slot + 1, counts.get(ok ? slot : slot + 1) + 1);
            }
          } catch (Throwable e) {
            errors.add(e);
          }
        }, "mixed-" + t));
      }
      threads.forEach(Thread::start);
      try {
        ready.await();
        ContentionRunner.pause(warmup);
        long[] before = totals(counts);
        long t0 = System.nanoTime();
        ContentionRunner.pause(seconds);
        long[] after = totals(counts);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long commits = after[0] - before[0];
        long conflicts = after[1] - before[1];
        return new Result(commits / elapsed, commits + conflicts == 0 ? 0 : (double) conflicts / (commits + conflicts));
      } finally {
        running.on = false;
        for (Thread t : threads) {
          t.join();
        }
        if (!errors.isEmpty()) {
          throw new IllegalStateException("the mixed workload failed (" + variant.label + ")", errors.get(0));
        }
      }
    }
  }

  /** One transaction; false when it conflicted. */
  private boolean commit(Database db, Variant variant, SplittableRandom random, int base, int span) {
    Transaction txn = db.begin();
    try {
      if (random.nextInt(100) < 80) {
        byte[] key = ReadKeys.key(base + random.nextInt(span));
        txn.get(key);
        txn.put(key, value);
      } else {
        long from = base + random.nextInt(Math.max(1, span - SCAN));
        KeyRange range = KeyRange.between(ReadKeys.key(from), ReadKeys.key(from + SCAN));
        try (Cursor c = variant == Variant.UNTRACKED ? txn.scanUntracked(range) : txn.scan(range)) {
          while (c.hasNext()) {
            c.next();
          }
        }
        txn.put(ReadKeys.key(base + random.nextInt(span)), value);
      }
      txn.commitSync();
      return true;
    } catch (ConflictException e) {
      return false;
    } finally {
      txn.close();
    }
  }

  private static long[] totals(AtomicLongArray counts) {
    long[] n = new long[2];
    for (int i = 0; i < counts.length(); i += 16) {
      n[0] += counts.get(i);
      n[1] += counts.get(i + 1);
    }
    return n;
  }

  private static final class Running {
    volatile boolean on = true;
  }
}
