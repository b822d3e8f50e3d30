package io.commitlane.storage;

import org.rocksdb.CompactRangeOptions;
import org.rocksdb.CompactRangeOptions.BottommostLevelCompaction;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * A manual compaction of a key range of one store ({@link Database#compact}): RocksDB rewrites the
 * data files that overlap the range, dropping deleted and overwritten versions no snapshot still
 * needs. It runs on the caller's thread until done; automatic compactions go on meanwhile.
 *
 * <p>The store is claimed for the whole compaction (a drop waits for it, as for a commit), and
 * the handle's gate is held, so closing the handle waits for a compaction that is running.
 */
final class Compaction {
  private Compaction() {}

  static void run(Database db, KeyRange range, boolean bottommost) {
    db.shared().requireWritable("compact");
    Store store = range.storeIn(db);
    db.requireOwn(store);
    db.enter();
    try {
      boolean claimed = store.claim();
      try (CompactRangeOptions options = new CompactRangeOptions()
          // Not exclusive: flushes and automatic compactions keep running, so commits never stall behind it.
          .setExclusiveManualCompaction(false)
          // Forced: the last level is rewritten too, which is where range deletes and tombstones go away.
          .setBottommostLevelCompaction(bottommost ? BottommostLevelCompaction.kForceOptimized
              : BottommostLevelCompaction.kIfHaveCompactionFilter)) {
        db.shared().rocks().compactRange(store.handle(), range.start(), range.end(), options);
      } catch (RocksDBException e) {
        throw new StorageException("compaction of store '" + store.name() + "' " + range + " failed in " + db.path()
            + ": the data is unchanged; " + advice(e), e);
      } finally {
        if (claimed) {
          store.release();
        }
      }
    } finally {
      db.exit();
    }
  }

  /** A damaged file is not fixed by a retry, and RocksDB stops writes for it: say so. */
  private static String advice(RocksDBException e) {
    Status status = e.getStatus();
    if (status != null && status.getCode() == Status.Code.Corruption) {
      return "a data file is damaged (RocksDB reports Corruption), and RocksDB refuses writes until the database is reopened;"
          + " see Database.health(), RocksDB's LOG file and docs/operations.md (Health)";
    }
    return "check free disk space and retry";
  }
}
