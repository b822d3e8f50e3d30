package io.commitlane.txlog;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a user of a database may do with one of its transaction logs: read committed records,
 * wait for new ones, see positions, damage and counters, and purge old segments. Appending,
 * finishing and aborting records belong to the commits that own them, so they are not here: a
 * record appended from outside a commit would break "log order agrees with commit order".
 */
public interface LogView {
  /** The log's name. */
  String name();

  /** The directory holding the segment files. */
  Path directory();

  /** A reader positioned as {@code request} says; committed records only unless it asks otherwise. */
  LogReader reader(ReadRequest request);

  /**
   * Completes when the committed watermark is above {@code position}, on the thread that advanced
   * it: hop to your own executor. Fails with {@link LogClosedException} when the log closes.
   */
  CompletableFuture<Void> whenCommittedBeyond(long position);

  /** Records below this position are held by a completed RocksDB flush; crash replay starts here. */
  long flushedPosition();

  /** Every record below this position has committed or aborted. */
  long committedWatermark();

  /** Damage found when the log was opened (missing, truncated or unreadable segments, corrupt frames). */
  List<LogDamage> damage();

  /** Deletes sealed segments older than {@code olderThan}, never one that holds unflushed records. */
  PurgeResult purge(Instant olderThan);

  /** {@link #purge} of what is older than the retention setting. */
  PurgeResult purgeExpired();

  /** A snapshot of the log's counters. */
  LogStats stats();

  /** Whether the log is closed (its database handle was released). */
  boolean isClosed();
}
