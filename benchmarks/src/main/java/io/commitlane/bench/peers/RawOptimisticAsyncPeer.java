package io.commitlane.bench.peers;

import io.commitlane.bench.harness.CommitTally;
import io.commitlane.bench.harness.CommitValues;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.PipelineSample;
import io.commitlane.bench.harness.WindowListener;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.rocksdb.OptimisticTransactionDB;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.Transaction;
import org.rocksdb.WriteOptions;

/**
 * The asynchronous peer ({@code optimistic-async}): what an actor service would write by hand
 * around rocksdbjni's {@code OptimisticTransactionDB}. Each worker builds a transaction on its own
 * thread (begin, then a put per key: RocksDB tracks each key at the sequence current when it is
 * put), hands {@code commit()} to a dedicated pool of {@code commitThreads} threads, and keeps up
 * to {@code inFlight} commits in flight, exactly as commitlane's pipeline rows do. So commits wait
 * in a queue between their writes and their validation, as commitlane's do, and the conflicts that
 * depth brings show. Keys, values, warm-up and window are as in {@link ContentionRunner}; latency
 * runs from begin to the commit's return on the pool thread.
 */
public final class RawOptimisticAsyncPeer {
  private static final long DRAIN_TIMEOUT_SECONDS = 60;

  private final int keySpace;
  private final int valueSize;
  private final double warmupSeconds;
  private final double seconds;
  private final boolean wal;
  private final boolean readFirst;

  public RawOptimisticAsyncPeer(int keySpace, int valueSize, double warmupSeconds, double seconds, boolean wal) {
    this(keySpace, valueSize, warmupSeconds, seconds, wal, false);
  }

  /** With {@code readFirst}, each transaction reads every key with {@code getForUpdate} on the worker before it writes. */
  public RawOptimisticAsyncPeer(int keySpace, int valueSize, double warmupSeconds, double seconds, boolean wal, boolean readFirst) {
    this.keySpace = keySpace;
    this.valueSize = valueSize;
    this.warmupSeconds = warmupSeconds;
    this.seconds = seconds;
    this.wal = wal;
    this.readFirst = readFirst;
  }

  /** Measure one load; the sample's executors are the pool's threads. */
  public PipelineSample run(Load load, int inFlight, int commitThreads, Path dir, WindowListener listener) throws Exception {
    Files.createDirectories(dir);
    try (Options options = new Options().setCreateIfMissing(true);
        WriteOptions writeOptions = new WriteOptions().setDisableWAL(!wal);
        ReadOptions readOptions = new ReadOptions();
        OptimisticTransactionDB db = OptimisticTransactionDB.open(options, dir.toString())) {
      ExecutorService pool = commitPool(commitThreads);
      try {
        return measure(db, writeOptions, readOptions, pool, load, inFlight, listener, commitThreads);
      } finally {
        pool.shutdown();
        if (!pool.awaitTermination(DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the raw commit pool did not stop within " + DRAIN_TIMEOUT_SECONDS + " s");
        }
      }
    } finally {
      ContentionRunner.deleteRecursively(dir);
    }
  }

  /** Fixed threads, unbounded queue: the workers' in-flight limits bound it. */
  private static ExecutorService commitPool(int threads) {
    AtomicInteger n = new AtomicInteger();
    return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "raw-optimistic-commit-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  private PipelineSample measure(OptimisticTransactionDB db, WriteOptions writeOptions, ReadOptions readOptions, ExecutorService pool,
      Load load, int inFlight, WindowListener listener, int commitThreads) throws Exception {
    CommitTally tally = new CommitTally();
    CountDownLatch ready = new CountDownLatch(load.threads());
    List<Thread> workers = tally.startInFlightWorkers(load.threads(), "bench-raw-async-", ready, inFlight, CommitValues.fixed(valueSize),
        (random, value, done) -> submit(db, writeOptions, readOptions, pool, random, value, load.keys(), tally, done));
    try {
      CommitTally.Window window = tally.measure(ready, warmupSeconds, seconds, listener, () -> { });
      return new PipelineSample(window.measurement(), commitThreads, Double.NaN);
    } finally {
      tally.stop(workers, "raw OptimisticTransactionDB (async) under " + load);
    }
  }

  /** On the worker: begin and write the transaction, then hand its commit to the pool. A write that fails ends the worker. */
  private void submit(OptimisticTransactionDB db, WriteOptions writeOptions, ReadOptions readOptions, ExecutorService pool,
      SplittableRandom random, byte[] value, int keyCount, CommitTally tally, Runnable done) throws RocksDBException {
    long start = System.nanoTime();
    Transaction txn = db.beginTransaction(writeOptions);
    try {
      byte[][] keys = new byte[keyCount][];
      for (int i = 0; i < keyCount; i++) {
        keys[i] = ByteBuffer.allocate(8).putLong(random.nextInt(keySpace)).array();
      }
      for (int i = 0; readFirst && i < keyCount; i++) {
        txn.getForUpdate(readOptions, keys[i], true);
      }
      for (byte[] k : keys) {
        txn.put(k, value);
      }
    } catch (RocksDBException e) {
      txn.close();
      done.run();
      throw e;
    }
    pool.execute(() -> {
      try {
        commit(txn, tally);
      } finally {
        tally.latency.recordValue(Math.max(0, System.nanoTime() - start));
        done.run();
      }
    });
  }

  /** On a pool thread: commit, count a conflict (Busy or TryAgain: nothing written) or record the error. */
  private static void commit(Transaction txn, CommitTally tally) {
    try {
      txn.commit();
      tally.commits.increment();
    } catch (RocksDBException e) {
      Status s = e.getStatus();
      if (s != null && (s.getCode() == Status.Code.Busy || s.getCode() == Status.Code.TryAgain)) {
        tally.conflicts.increment();
        try {
          txn.rollback();
        } catch (RocksDBException rollback) {
          tally.errors.add(rollback);
        }
      } else {
        tally.errors.add(e);
      }
    } finally {
      txn.close();
    }
  }
}
