package io.commitlane.testkit;

import io.commitlane.storage.Database;
import io.commitlane.storage.RocksDbStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * A RocksDB write stall forced on a database, without timing luck: its flushes and compactions
 * are paused ({@link Database#pauseBackgroundWork()}), so once a store holds {@code
 * max-write-buffers} memtables waiting for their flush, RocksDB stops writes; with more than 3
 * memtables it slows them first, with one fewer waiting. A write RocksDB stopped waits inside
 * RocksDB until {@link #close()} ends the pause; then RocksDB flushes and every stopped write goes
 * on. Small memtables make the stall come after a few writes: {@code commitlane.rocksdb {
 * write-buffer-size = 64 KiB, max-write-buffers = 2 }} (or {@code RocksDbTuning.withWriteBuffers}).
 *
 * <pre>{@code
 * try (WriteStall stall = WriteStall.force(db.storage())) {
 *   for (int i = 0; !stall.writesStopped(); i++) {
 *     db.commit(db.begin().put(key(i), value));   // asynchronous: a stopped write waits on its executor
 *   }
 *   stall.awaitBlockedWriters(name -> name.startsWith("commitlane-commit-"), 1, Duration.ofSeconds(30));
 *   // ... the queue fills, commits are refused, streams wait ...
 * }                                               // the stall ends: every admitted commit completes
 * }</pre>
 *
 * <p>docs/testkit.md has this as a test that runs.
 *
 * <p>The waits poll what RocksDB reports ({@link Database#rocksDbStats()}) and the threads' stacks,
 * every millisecond, and fail with a {@link StageTimeoutException} that says what was seen.
 */
public final class WriteStall implements AutoCloseable {
  /** RocksDB's native write calls (rocksdbjni): a thread whose top frame is one of them is inside a write. */
  private static final Set<String> NATIVE_WRITES = Set.of("put", "putDirect", "delete", "deleteDirect", "singleDelete",
      "deleteRange", "merge", "mergeDirect", "write0", "write1");

  private final Database db;
  private final Database.Registration pause;

  private WriteStall(Database db) {
    this.db = db;
    this.pause = db.pauseBackgroundWork();
  }

  /**
   * Pause {@code db}'s flushes and compactions (every handle of its path) until {@link #close()}.
   * RocksDB first waits for those running now. Closing {@code db} ends the pause too.
   */
  public static WriteStall force(Database db) {
    return new WriteStall(Objects.requireNonNull(db, "db"));
  }

  /** Whether RocksDB stops writes now (its {@code rocksdb.is-write-stopped}). */
  public boolean writesStopped() {
    return db.rocksDbStats().writeStopped();
  }

  /** Whether RocksDB slows writes now: its delayed write rate is above 0 (0 while it stops them). */
  public boolean writesDelayed() {
    return db.rocksDbStats().delayedWriteRate() > 0;
  }

  /** Wait until RocksDB stops writes: someone must write until the memtables are full. */
  public void awaitWritesStopped(Duration timeout) {
    await(this::writesStopped, timeout, () -> "RocksDB to stop writes; it reports " + db.rocksDbStats());
  }

  /** Wait until RocksDB slows writes (needs more than 3 {@code max-write-buffers}). */
  public void awaitWritesDelayed(Duration timeout) {
    await(this::writesDelayed, timeout, () -> "RocksDB to slow writes; it reports " + db.rocksDbStats());
  }

  /**
   * Wait until at least {@code n} threads whose name matches {@code threadName} are inside a
   * RocksDB write call. While writes are stopped, such a thread stays there until the stall ends;
   * a commit executor that is there takes nothing more from its queue.
   */
  public void awaitBlockedWriters(Predicate<String> threadName, int n, Duration timeout) {
    Objects.requireNonNull(threadName, "threadName");
    await(() -> blockedWriters().stream().filter(threadName).count() >= n, timeout,
        () -> n + " matching threads inside a RocksDB write; inside one now: " + blockedWriters() + "; RocksDB reports "
            + db.rocksDbStats());
  }

  /**
   * The names of the threads of this JVM inside a RocksDB write call now (any database): with
   * writes stopped, the threads a stall holds. A thread of Pekko's default dispatcher among them
   * is blocking that dispatcher.
   */
  public static List<String> blockedWriters() {
    List<String> names = new ArrayList<>();
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      StackTraceElement[] stack = e.getValue();
      if (stack.length > 0 && stack[0].isNativeMethod() && "org.rocksdb.RocksDB".equals(stack[0].getClassName())
          && NATIVE_WRITES.contains(stack[0].getMethodName())) {
        names.add(e.getKey().getName());
      }
    }
    return names;
  }

  /** What RocksDB reports about the database now. */
  public RocksDbStats stats() {
    return db.rocksDbStats();
  }

  /** End the stall: RocksDB flushes and compacts again, and every write it stopped goes on. Idempotent. */
  @Override
  public void close() {
    pause.close();
  }

  private static void await(BooleanSupplier condition, Duration timeout, java.util.function.Supplier<String> what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new StageTimeoutException("timed out after " + timeout + " waiting for " + what.get());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }
}
