package io.commitlane.storage.internal.commit;

import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.StorageException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * An out-of-band group committer for RocksDB's own WAL: one thread calls {@code
 * flushWal(true)} (write the WAL buffer, then fsync) every {@code interval} and whenever someone
 * asks, and one call serves every request made before it started. Requests made during a sync
 * ride the next one. Futures complete on this thread ({@code commitlane-wal-sync-<db>}).
 */
public final class WalGroupSyncer implements AutoCloseable {
  private final String dbName;
  private final RocksDB db;
  private final long intervalNanos;
  private final Thread thread;
  /** Completes when the thread has run its last sync and returned. */
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private List<CompletableFuture<Void>> waiting = new ArrayList<>();
  private boolean closing;
  private volatile long syncs;
  private volatile StorageException failure;
  /** The commit clock: a sync that starts once it reached v covers every commit stamped v or lower. */
  private final LongSupplier clock;
  /** The clock value read when the last successful sync started. */
  private volatile long syncedThrough;

  public WalGroupSyncer(String dbName, RocksDB db, Duration interval, LongSupplier clock) {
    this.dbName = dbName;
    this.clock = clock;
    this.db = db;
    this.intervalNanos = interval.toNanos();
    this.thread = new Thread(() -> {
      try {
        run();
      } finally {
        stopped.complete(null);
      }
    }, "commitlane-wal-sync-" + dbName);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /** Completes after a WAL write + fsync that started after this call. */
  public CompletableFuture<Void> requestSync() {
    lock.lock();
    try {
      if (failure != null) {
        return CompletableFuture.failedFuture(failure);
      }
      if (closing) {
        return CompletableFuture.failedFuture(new DatabaseClosedException(Path.of(dbName)));
      }
      CompletableFuture<Void> f = new CompletableFuture<>();
      waiting.add(f);
      wake.signal();
      return f;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Wait until a sync covers the commit stamped {@code version}: at once when a sync that started
   * after that stamp already succeeded (the later members of a merged write group), otherwise for
   * the next sync.
   */
  public void awaitSyncCovering(long version) {
    if (failure == null && syncedThrough >= version) {
      return;
    }
    awaitSync();
  }

  /** Blocks until a sync that started after this call finished. */
  void awaitSync() {
    try {
      requestSync().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  public long syncs() {
    return syncs;
  }

  private void run() {
    while (true) {
      List<CompletableFuture<Void>> batch;
      boolean last;
      lock.lock();
      try {
        if (waiting.isEmpty() && !closing) {
          try {
            if (intervalNanos > 0) {
              wake.awaitNanos(intervalNanos);
            } else {
              wake.await();
            }
          } catch (InterruptedException e) {
            closing = true;
          }
        }
        batch = waiting;
        waiting = new ArrayList<>();
        last = closing;
      } finally {
        lock.unlock();
      }
      syncOnce(batch);
      if (last) {
        return;
      }
    }
  }

  private void syncOnce(List<CompletableFuture<Void>> batch) {
    if (failure == null) {
      try {
        long covered = clock.getAsLong(); // read before the sync: every commit stamped up to here wrote before it
        db.flushWal(true);
        syncedThrough = covered;
        syncs++;
      } catch (RocksDBException e) {
        failure = new StorageException("RocksDB WAL sync of " + dbName + " failed; commits that"
            + " waited for it are not durable: reopen the database", e);
      } catch (RuntimeException e) {
        // RocksDB treats a failed WAL write as a background error and stops writes; say so here.
        failure = new StorageException("RocksDB WAL sync of " + dbName + " failed; commits that"
            + " waited for it are not durable: reopen the database", e);
      }
    }
    StorageException f = failure;
    for (CompletableFuture<Void> each : batch) {
      if (f == null) {
        each.complete(null);
      } else {
        each.completeExceptionally(f);
      }
    }
  }

  /** A last sync for whatever is pending, then the thread stops. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      closing = true;
      wake.signal();
    } finally {
      lock.unlock();
    }
    if (Thread.currentThread() != thread) { // a future's callback on this thread may close the database
      stopped.join(); // waits through interrupts and keeps the caller's interrupt status
    }
  }
}
