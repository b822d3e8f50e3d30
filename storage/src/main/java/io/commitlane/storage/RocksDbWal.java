package io.commitlane.storage;

import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.internal.settings.StorageKeys;
import io.commitlane.storage.internal.commit.WalGroupSyncer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How RocksDB's own write-ahead log is written, for databases that keep it on. Every field is off
 * by default (RocksDB's defaults); keys and ranges are defined in {@code StorageKeys}. What each
 * one changes:
 *
 * <ul>
 *   <li>{@code manualFlush} (RocksDB {@code manual_wal_flush}): writes stay in RocksDB's WAL
 *       buffer instead of reaching the file at every write; a {@link WalGroupSyncer} (or {@link
 *       Database#syncWal()}) writes and syncs them. Read-your-own-writes is unchanged; a process
 *       crash loses what no sync covered yet.
 *   <li>{@code syncInterval} (0 = none): a group syncer calls {@code flushWal(true)}
 *       (write + fsync) this often for every pending commit: an out-of-band group
 *       committer. Bounds what a crash or power loss can take.
 *   <li>{@code ackAfterSync}: a transactional commit completes only after a group sync that started
 *       after its write (concurrent commits share it): nothing acknowledged is lost, even on power
 *       loss. Non-transactional writes are covered by the period or {@link Database#syncWal()}.
 *   <li>{@code unorderedWrite} (RocksDB {@code unordered_write}): memtable inserts leave RocksDB's
 *       write group. Read-your-own-writes still holds, but a snapshot may see part of a concurrent
 *       commit; commitlane's validation turns a transaction that read such a torn view into a
 *       retryable conflict. Incompatible with {@code pipelinedWrite}.
 *   <li>{@code pipelinedWrite} (RocksDB {@code enable_pipelined_write}): the WAL write of one group
 *       overlaps the memtable write of the previous one. RocksDB forbids it with atomic flush,
 *       which commitlane needs with the WAL off, so it requires the WAL on (then stores flush
 *       independently; RocksDB recovers unflushed data from its WAL, and flush events report
 *       only what every store holds flushed: {@link StoreFlushCut}).
 *   <li>{@code twoWriteQueues} (RocksDB {@code two_write_queues}): WAL-only writes get their own
 *       queue. Durability and visibility unchanged.
 * </ul>
 */
public record RocksDbWal(boolean manualFlush, Duration syncInterval, boolean ackAfterSync,
    boolean unorderedWrite, boolean pipelinedWrite, boolean twoWriteQueues) {

  public RocksDbWal {
    List<SettingError> errors = new ArrayList<>();
    StorageKeys.WAL_SYNC_INTERVAL.check(errors, StorageKeys.WAL_SYNC_INTERVAL.javaName(), syncInterval);
    if (unorderedWrite && pipelinedWrite) {
      errors.add(new SettingError("rocksDbWal.unorderedWrite", true,
          "RocksDB forbids unordered-write together with pipelined-write; turn one off"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  /** RocksDB's defaults: everything off. */
  public static RocksDbWal defaults() {
    return new RocksDbWal(false, Duration.ZERO, false, false, false, false);
  }

  /** Whether a {@link WalGroupSyncer} runs. */
  public boolean needsSyncer() {
    return manualFlush || ackAfterSync || !syncInterval.isZero();
  }

  /** Whether any field differs from RocksDB's defaults. */
  public boolean isCustomized() {
    return !equals(defaults());
  }

  /**
   * Checks what depends on the rest of the open: with the WAL off none of these options means
   * anything, so asking for one is an error rather than a silent no-op.
   */
  void checkCompatible(boolean walEnabled) {
    if (!walEnabled && isCustomized()) {
      throw new InvalidSettingsException(List.of(new SettingError("rocksDbWal", this,
          "every RocksDB WAL option needs the WAL on (commitlane.wal = on / DatabaseOptions.withWal(true))")));
    }
  }
}
