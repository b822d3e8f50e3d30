package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snippets of docs/storage.md and docs/pipeline.md, verbatim between the markers, so they keep compiling and working. */
class ReadmeExamplesTest {
  @TempDir
  Path dir;

  @Test
  void storageQuickStart() {
    // README: storage-quick-start
    CommitlaneSettings settings = CommitlaneSettings.defaults().withOccValidation(OccValidation.PARALLEL);
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false).withSettings(settings))) {
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

  @Test
  void readsPage() {
    // docs/reads.md
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      Store orders = db.store("orders");
      for (int i = 1; i <= 5; i++) {
        db.put(orders, ("order/" + i).getBytes(UTF_8), ("item " + i).getBytes(UTF_8));
      }
      KeyRange all = KeyRange.prefix("order/".getBytes(UTF_8)).in(orders);

      // Outside a transaction: each call reads one consistent view of committed data.
      List<KeyValue> page = db.list(all.limit(2));                          // order/1, order/2
      List<KeyValue> nextPage = db.list(all.limit(2).after(page.get(1).key())); // order/3, order/4
      long exact = db.count(all);                                            // 5
      long rough = db.estimateCount(all);                                    // from RocksDB's statistics
      List<byte[]> values = db.multiGet(orders, List.of("order/1".getBytes(UTF_8), "order/9".getBytes(UTF_8)));

      // Inside a transaction: its snapshot merged with its own writes, validated at commit.
      long placed = db.transact(txn -> {
        long n = txn.count(all);                       // tracked: another commit's insert here is a conflict
        txn.put(orders, ("order/" + (n + 1)).getBytes(UTF_8), "new".getBytes(UTF_8));
        try (Cursor newestFirst = txn.scan(all.reverse().limit(1))) {
          return newestFirst.hasNext() ? n + 1 : 0;    // sees its own order/6
        }
      });
      // end docs
      assertEquals(List.of("order/1", "order/2"), page.stream().map(kv -> Bytes.str(kv.key())).toList());
      assertEquals(List.of("order/3", "order/4"), nextPage.stream().map(kv -> Bytes.str(kv.key())).toList());
      assertEquals(5, exact);
      assertEquals(true, rough >= 0);
      assertEquals("item 1", Bytes.str(values.get(0)));
      assertEquals(null, values.get(1));
      assertEquals(6, placed);
      assertEquals("new", Bytes.str(db.get(orders, "order/6".getBytes(UTF_8))));
    }
  }
}
