package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rocksdb.RocksDBException;

/**
 * Clearing is one serializable transaction: a concurrent commit is either cleared whole or
 * survives whole, by commit order; a reader of a cleared key conflicts. Compaction reclaims the
 * space of what was cleared.
 */
class CompactAndClearTest {
  @TempDir
  Path dir;

  private Database open(OccValidation policy) {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false).withStores("items", "other")
        .withSettings(CommitlaneSettings.defaults().withOccValidation(policy)));
  }

  @Test
  void clearingAStoreRemovesItsKeysOnly() {
    try (Database db = open(OccValidation.PARALLEL)) {
      for (int i = 0; i < 100; i++) {
        db.put(of("k" + i), of("v"));
        db.put(db.store("items"), of("k" + i), of("v"));
        db.put(db.store("other"), of("k" + i), of("v"));
      }
      assertEquals(100, db.clear(db.store("items")));
      assertEquals(100, db.clear(db.defaultStore()));
      assertEquals(0, db.count(KeyRange.all()));
      assertEquals(0, db.count(KeyRange.all().in(db.store("items"))));
      assertEquals(100, db.count(KeyRange.all().in(db.store("other"))));
      assertEquals(11, db.clear(KeyRange.prefix(of("k1")).in(db.store("other"))), "k1 and k10..k19");
      assertNull(db.get(db.store("other"), of("k15")));
      assertNotNull(db.get(db.store("other"), of("k2")));
      assertThrows(InvalidRangeException.class, () -> db.clear(KeyRange.all().limit(5)));
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aTransactionThatReadAClearedKeyConflicts(OccValidation policy) {
    try (Database db = open(policy)) {
      db.put(db.store("items"), of("a"), of("1"));
      Transaction reader = db.begin();
      assertEquals("1", Bytes.str(reader.get(db.store("items"), of("a"))));
      db.clear(db.store("items"));
      reader.put(db.store("other"), of("copy"), of("1"));
      assertThrows(ConflictException.class, reader::commitSync);
      Transaction scanner = db.begin();
      scanner.put(db.store("items"), of("b"), of("2"));
      assertEquals(1, scanner.count(KeyRange.all().in(db.store("items"))));
      db.put(db.store("items"), of("c"), of("3"));
      db.clear(db.store("items"));
      assertThrows(ConflictException.class, scanner::commitSync, "its scan saw keys the clear removed");
    }
  }

  /**
   * Writers commit pairs of keys into the store while clears run: afterwards each pair is present
   * exactly when its commit came after the last clear that ran (commit versions order them), and
   * never half.
   */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void concurrentCommitsAreClearedWholeOrSurviveWhole(OccValidation policy) throws Exception {
    try (Database db = open(policy)) {
      Store items = db.store("items");
      record Committed(String key, long version) {}
      ConcurrentLinkedQueue<Committed> committed = new ConcurrentLinkedQueue<>();
      CountDownLatch started = new CountDownLatch(2);
      // Writers wait half-way for the first clear, so at least one clear runs while they commit
      // (without it a fast pair of writers could finish before the first clear).
      CountDownLatch firstClear = new CountDownLatch(1);
      List<Thread> writers = new ArrayList<>();
      List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
      for (int w = 0; w < 2; w++) {
        int id = w;
        Thread t = new Thread(() -> {
          started.countDown();
          for (int i = 0; i < 400; i++) {
            if (i == 200) {
              try {
                firstClear.await();
              } catch (InterruptedException e) {
                failures.add(e);
                return;
              }
            }
            String key = "w" + id + "-" + i;
            try (Transaction txn = db.begin()) {
              txn.put(items, of(key + "/a"), of("x"));
              txn.put(items, of(key + "/b"), of("x"));
              committed.add(new Committed(key, txn.commitSync().version()));
            } catch (ConflictException e) {
              // blind writes of fresh keys conflict only with a clear that removed nothing of theirs: fine to drop
            } catch (Throwable e) {
              failures.add(e);
              return;
            }
          }
        }, "writer-" + w);
        writers.add(t);
        t.start();
      }
      started.await();
      long lastClear = 0;
      int clears = 0;
      do {
        lastClear = clearOnce(db, KeyRange.all().in(items));
        clears++;
        firstClear.countDown();
      } while (writers.stream().anyMatch(Thread::isAlive));
      for (Thread t : writers) {
        t.join();
      }
      assertTrue(clears > 0);
      assertTrue(failures.isEmpty(), failures.toString());
      int survived = 0;
      for (Committed c : committed) {
        boolean a = db.get(items, of(c.key() + "/a")) != null;
        boolean b = db.get(items, of(c.key() + "/b")) != null;
        assertEquals(a, b, "half of " + c.key() + " was cleared");
        assertEquals(c.version() > lastClear, a, c.key() + " at version " + c.version() + ", last clear at " + lastClear);
        survived += a ? 1 : 0;
      }
      assertEquals(2L * survived, db.count(KeyRange.all().in(items)), "nothing else is in the store");
    }
  }

  /** One clear, retried on conflict as {@link Database#clear} does; returns its commit version. */
  private static long clearOnce(Database db, KeyRange range) {
    for (int attempt = 0; ; attempt++) {
      try (Transaction txn = db.begin()) {
        RangeClear.of(range).apply(txn);
        return txn.commitSync().version();
      } catch (ConflictException e) {
        assertTrue(attempt < 1000, "a clear kept conflicting");
      }
    }
  }

  @Test
  void compactionReclaimsTheSpaceOfAClearedStore() throws RocksDBException {
    try (Database db = open(OccValidation.PARALLEL)) {
      Store items = db.store("items");
      java.util.Random random = new java.util.Random(1);
      for (int i = 0; i < 5000; i++) {
        byte[] value = new byte[1000];
        random.nextBytes(value);
        db.put(items, of(String.format("k%05d", i)), value);
      }
      db.flush();
      long before = sstBytes(db, items);
      assertTrue(before > 4_000_000, "about 5 MB of incompressible values: " + before);
      db.compact(KeyRange.between(of("k00000"), of("k01000")).in(items), false);
      assertEquals(5000, db.count(KeyRange.all().in(items)), "compaction changes no data");
      db.clear(items);
      db.flush();
      db.compact(items, true);
      assertTrue(sstBytes(db, items) < before / 20, "after a clear and a bottommost compaction: " + sstBytes(db, items));
      assertEquals(0, db.count(KeyRange.all().in(items)));
      db.compact(db.defaultStore(), false);
      db.dropStore("other").toCompletableFuture().join();
      Store dropped = db.findStore("other").orElse(null);
      assertNull(dropped);
    }
  }

  private static long sstBytes(Database db, Store store) throws RocksDBException {
    return db.shared().rocks().getLongProperty(store.handle(), "rocksdb.total-sst-files-size");
  }
}
