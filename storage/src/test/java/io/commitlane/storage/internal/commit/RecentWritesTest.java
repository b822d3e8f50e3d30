package io.commitlane.storage.internal.commit;

import static io.commitlane.storage.Bytes.of;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.Batch;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.StorageStats;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The record of recent writes behind per-key validation: what it keeps for a transaction held
 * open, what it forgets once nobody needs it, and the conservative answer past its bound.
 */
class RecentWritesTest {
  private static final int SLOTS_WHEN_NOTHING_IS_NEEDED = RecentWrites.PARTITIONS * RecentWrites.MIN_SLOTS;

  @TempDir
  Path dir;

  private Database open() {
    CommitlaneSettings s = CommitlaneSettings.defaults().withOccLockBuckets(16);
    return Database.open(dir, DatabaseOptions.defaults().withWal(false).withSettings(s));
  }

  /** Non-transactional batches of {@code batch} distinct keys each, named from {@code prefix}. */
  private static void writeKeys(Database db, String prefix, int count, int batch) {
    for (int i = 0; i < count; i += batch) {
      Batch b = Batch.create();
      for (int k = i; k < Math.min(count, i + batch); k++) {
        b.put(db.defaultStore(), of(prefix + k), of("v"));
      }
      db.write(b);
    }
  }

  @Test
  void aTransactionHeldOpenIsAnsweredPerKeyAndTheRecordShrinksOnceItEnds() {
    try (Database db = open()) {
      Transaction old = db.begin();
      old.get(of("mine"));
      old.put(of("mine"), of("1"));
      Transaction stale = db.begin();
      stale.get(of("burst-7"));
      stale.put(of("other"), of("1"));

      writeKeys(db, "burst-", 50_000, 1_000); // about 780 keys a partition: within its bound
      StorageStats during = db.stats();
      assertTrue(during.recentWriteSlots() > SLOTS_WHEN_NOTHING_IS_NEEDED,
          "the record keeps the burst while older transactions may ask: " + during.recentWriteSlots() + " slots");

      old.commitSync(); // every bucket is newer than its baseline; its key is not
      assertThrows(ConflictException.class, stale::commitSync, "burst-7 was written after stale's snapshot");
      assertEquals(1, db.stats().conflicts());
      assertEquals(0, db.stats().conservativeConflicts());

      writeKeys(db, "later-", 100_000, 1_000); // no transaction is live: every rebuild drops what it held
      StorageStats after = db.stats();
      assertEquals(SLOTS_WHEN_NOTHING_IS_NEEDED, after.recentWriteSlots(), "back to the smallest tables");
    }
  }

  @Test
  void aTransactionHeldOpenPastTheBoundGetsAConservativeConflictAndYoungerOnesDoNot() {
    try (Database db = open()) {
      Transaction old = db.begin();
      old.get(of("mine"));
      old.put(of("mine"), of("1"));

      writeKeys(db, "burst-", 300_000, 2_000); // about 4,700 keys a partition: each forgets at least once
      StorageStats s = db.stats();
      assertEquals((long) RecentWrites.PARTITIONS * RecentWrites.MAX_SLOTS, s.recentWriteSlots(), "the record stays within its bound");

      Transaction young = db.begin();
      young.get(of("burst-3"));
      young.put(of("yours"), of("1"));
      db.put(of("burst-299999"), of("again"));
      young.commitSync(); // began after the burst: the record answers for it exactly

      ConflictException e = assertThrows(ConflictException.class, old::commitSync,
          "old's baseline is below what the record still holds: it cannot tell, so it assumes a conflict");
      assertTrue(e.isRetryable());
      assertEquals(1, db.stats().conflicts());
      assertEquals(1, db.stats().conservativeConflicts());
    }
  }
}
