package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snippets of docs/storage.md and docs/pipeline.md, verbatim between the markers, so they keep compiling and working. */
class ReadmeExamplesTest {
  @TempDir
  Path dir;

  @AfterEach
  void reset() {
    ProcessSettings.reset();
  }

  @Test
  void storageQuickStart() {
    // README: storage-quick-start
    ProcessSettings.configure(Map.of("occLockBuckets", 65_536, "occValidation", "parallel"));
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      byte[] counter = "visits".getBytes(StandardCharsets.UTF_8);
      // Read-modify-write: the read is tracked, so a concurrent increment makes this commit
      // conflict and transact() runs it again on a fresh snapshot (3 retries by default).
      long visits = db.transact(txn -> {
        byte[] old = txn.get(counter);
        long next = (old == null ? 0 : ByteBuffer.wrap(old).getLong()) + 1;
        txn.put(counter, ByteBuffer.allocate(8).putLong(next).array());
        return next;
      });

      Store users = db.store("users");                 // a named store (column family)
      Transaction txn = db.begin();
      txn.put(users, "alice".getBytes(StandardCharsets.UTF_8), "admin".getBytes(StandardCharsets.UTF_8));
      try {
        txn.commitSync();
      } catch (ConflictException e) {
        // retryable: nothing was written; run the work again on a new transaction
      }
      // end README
      assertEquals(1, visits);
      assertEquals("admin", Bytes.str(db.get(users, Bytes.of("alice"))));
    }
  }

  @Test
  void mergedWriteGroup() {
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      // README: merged-write-group
      Transaction a = db.begin().put("k".getBytes(StandardCharsets.UTF_8), "A".getBytes(StandardCharsets.UTF_8));
      Transaction b = db.begin();
      b.get("k".getBytes(StandardCharsets.UTF_8));                     // a tracked read: validated at commit
      b.put("k".getBytes(StandardCharsets.UTF_8), "B".getBytes(StandardCharsets.UTF_8));
      Transaction c = db.begin().put("other".getBytes(StandardCharsets.UTF_8), "C".getBytes(StandardCharsets.UTF_8));
      GroupResult r = db.commitGroup(java.util.List.of(a, b, c)); // validated in order, one RocksDB write
      boolean bConflicted = r.failure(1) instanceof ConflictException; // b read k before a wrote it
      long cVersion = r.result(2).version();                           // a and c committed, in that order
      // README: end
      assertEquals(true, bConflicted);
      assertEquals(true, cVersion > r.result(0).version());
    }
  }

  @Test
  void conflictsPage() {
    // docs/conflicts.md
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      byte[] counter = "visits".getBytes(StandardCharsets.UTF_8);
      long visits = db.transact(txn -> {
        byte[] old = txn.get(counter);                  // tracked: validated per key at commit
        long next = (old == null ? 0 : ByteBuffer.wrap(old).getLong()) + 1;
        txn.put(counter, ByteBuffer.allocate(8).putLong(next).array());
        return next;
      });                                               // a conflict runs it again on a fresh snapshot
      db.begin().put("audit/1".getBytes(StandardCharsets.UTF_8), "x".getBytes(StandardCharsets.UTF_8))
          .commitSync();                                // read nothing: never conflicts
      long assumed = db.stats().conservativeConflicts(); // 0 unless a transaction stayed open very long
      // end docs
      assertEquals(1, visits);
      assertEquals(0, assumed);
      assertEquals("x", Bytes.str(db.get(Bytes.of("audit/1"))));
    }
  }
}
