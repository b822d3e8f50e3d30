package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseLifecycleTest {
  @TempDir
  Path dir;

  @Test
  void dataSurvivesCloseAndReopen() {
    try (Database db = Database.open(dir)) {
      db.put(of("k"), of("v"));
      db.transact(t -> t.put(of("t"), of("w")));
    }
    assertFalse(Database.isOpen(dir));
    try (Database db = Database.open(dir)) {
      assertEquals("v", str(db.get(of("k"))));
      assertEquals("w", str(db.get(of("t"))));
    }
  }

  @Test
  void secondOpenSharesTheHandleAndClosesIndependently() {
    Database a = Database.open(dir);
    Database b = Database.open(dir.resolve(".").resolve("x").resolve("..")); // same path, spelled differently
    a.put(of("k"), of("1"));
    assertEquals("1", str(b.get(of("k"))));
    a.close();
    assertTrue(a.isClosed());
    assertTrue(Database.isOpen(dir));
    b.put(of("k"), of("2"));
    assertEquals("2", str(b.get(of("k"))));
    assertThrows(DatabaseClosedException.class, () -> a.get(of("k")));
    b.close();
    assertFalse(Database.isOpen(dir));
  }

  @Test
  void conflictingOptionsAreRefused() {
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      PathInUseException e = assertThrows(PathInUseException.class,
          () -> Database.open(dir, DatabaseOptions.defaults().withWal(true)));
      assertTrue(e.getMessage().contains("walEnabled: open with false, asked for true"), e.getMessage());
      PathInUseException other = assertThrows(PathInUseException.class, () -> Database.open(dir,
          DatabaseOptions.defaults().withWal(false).withSettings(db.settings().withOccLockBuckets(16))));
      assertTrue(other.getMessage().contains("(occLockBuckets: open with " + db.settings().occLockBuckets() + ", asked for 16)"),
          "names only the option that differs: " + other.getMessage());
      // Same explicit settings are fine.
      Database.open(dir, DatabaseOptions.defaults().withWal(false).withSettings(db.settings())).close();
    }
  }

  @Test
  void closeFailsOpenTransactionsAndReleasesTheHandle() {
    Database db = Database.open(dir);
    db.put(of("k"), of("v"));
    Transaction reader = db.begin();
    assertEquals("v", str(reader.get(of("k")))); // holds a snapshot
    Transaction writer = db.begin().put(of("k"), of("w"));
    db.close();
    assertThrows(DatabaseClosedException.class, writer::commitSync);
    assertThrows(DatabaseClosedException.class, () -> reader.get(of("k")));
    assertThrows(DatabaseClosedException.class, db::begin);
    assertThrows(DatabaseClosedException.class, () -> db.put(of("k"), of("x")));
    reader.close(); // ending a transaction of a closed handle is harmless
    writer.close();
    assertFalse(Database.isOpen(dir));
    try (Database again = Database.open(dir)) {
      assertEquals("v", str(again.get(of("k"))));
    }
  }

  @Test
  void closeIsIdempotent() {
    Database db = Database.open(dir);
    db.close();
    db.close();
    assertFalse(Database.isOpen(dir));
  }

  @Test
  void destroyRemovesTheFilesAndIsRefusedWhileOpen() throws Exception {
    Database db = Database.open(dir.resolve("db"));
    db.put(of("k"), of("v"));
    assertThrows(PathInUseException.class, () -> Database.destroy(dir.resolve("db")));
    db.close();
    Files.createDirectories(dir.resolve("db/txlog/main")); // what later modules keep beside the data
    Database.destroy(dir.resolve("db"));
    assertFalse(Files.exists(dir.resolve("db")));
    try (Database fresh = Database.open(dir.resolve("db"))) {
      assertNull(fresh.get(of("k")));
    }
  }

  @Test
  void openWithoutCreateFailsClearly() {
    StorageException e = assertThrows(StorageException.class,
        () -> Database.open(dir.resolve("missing"), DatabaseOptions.defaults().withCreateIfMissing(false)));
    assertTrue(e.getMessage().contains("missing"), e.getMessage());
    assertFalse(Database.isOpen(dir.resolve("missing")));
  }

  @Test
  void namedStoresAreSeparateAndPersist() {
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withStores("users"))) {
      Store users = db.store("users");
      Store orders = db.store("orders"); // created on demand
      db.put(users, of("k"), of("u"));
      db.put(orders, of("k"), of("o"));
      assertNull(db.get(of("k")));
      assertEquals("u", str(db.get(users, of("k"))));
      assertEquals("o", str(db.get(orders, of("k"))));
    }
    try (Database db = Database.open(dir)) {
      assertTrue(db.storeNames().containsAll(java.util.List.of("default", "users", "orders")));
      assertEquals("o", str(db.get(db.store("orders"), of("k"))));
    }
  }

  @Test
  void storesOfAnotherDatabaseAreRejected() {
    try (Database a = Database.open(dir.resolve("a")); Database b = Database.open(dir.resolve("b"))) {
      Store foreign = b.store("s");
      assertThrows(IllegalArgumentException.class, () -> a.put(foreign, of("k"), of("v")));
      assertThrows(IllegalArgumentException.class, () -> a.begin().get(foreign, of("k")));
    }
  }

  @Test
  void transactionsReadTheirOwnWritesAndRemovals() {
    try (Database db = Database.open(dir)) {
      db.put(of("a"), of("1"));
      Transaction t = db.begin();
      assertEquals("1", str(t.get(of("a"))));
      t.put(of("a"), of("2")).put(of("b"), of("3"));
      assertEquals("2", str(t.get(of("a"))));
      t.remove(of("b"));
      assertNull(t.get(of("b")));
      assertEquals("1", str(db.get(of("a"))), "buffered writes are invisible until commit");
      t.commitSync();
      assertEquals("2", str(db.get(of("a"))));
      assertNull(db.get(of("b")));
      assertEquals(Transaction.State.COMMITTED, t.state());
      assertThrows(IllegalStateException.class, () -> t.put(of("c"), of("x")));
    }
  }

  @Test
  void readsComeFromOneSnapshot() {
    try (Database db = Database.open(dir)) {
      db.put(of("a"), of("1"));
      db.put(of("b"), of("1"));
      Transaction t = db.begin();
      assertEquals("1", str(t.getUntracked(of("a"))));
      db.put(of("b"), of("2"));
      assertEquals("1", str(t.getUntracked(of("b"))), "b was changed after the snapshot");
      t.abort();
      assertEquals(Transaction.State.ABORTED, t.state());
    }
  }

  @Test
  void manyWritesInOneTransaction() {
    try (Database db = Database.open(dir)) {
      Transaction t = db.begin();
      for (int i = 0; i < 100; i++) {
        t.put(of("k" + i), of("v" + i));
        t.put(of("k" + i), of("w" + i)); // overwrite in place, still one write per key
      }
      assertEquals(100, t.writeCount());
      assertEquals("w42", str(t.get(of("k42"))));
      t.commitSync();
      for (int i = 0; i < 100; i++) {
        assertArrayEquals(of("w" + i), db.get(of("k" + i)));
      }
    }
  }

  @Test
  void flushListenersSeeEveryStoreFlushedAtOneCut() {
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      Store other = db.store("other");
      java.util.List<Long> flushed = new java.util.concurrent.CopyOnWriteArrayList<>();
      Database.Registration r = db.addFlushListener(flushed::add);
      db.put(of("a"), of("1"));
      db.put(other, of("b"), of("2"));
      long last = db.latestSequenceNumber();
      db.flush();
      assertFalse(flushed.isEmpty());
      assertEquals(last, flushed.stream().mapToLong(Long::longValue).max().getAsLong(),
          "the flush held everything written before it, in every store");
      r.close();
      db.put(of("c"), of("3"));
      int before = flushed.size();
      db.flush();
      assertEquals(before, flushed.size(), "a removed listener hears nothing");
    }
  }

  /** The empty key is a key like any other: it sorts first, reads back, and conflicts. */
  @Test
  void theEmptyKeyIsAKey() {
    try (Database db = Database.open(dir)) {
      byte[] empty = new byte[0];
      db.put(empty, of("first"));
      db.put(of("a"), of("second"));
      assertEquals("first", str(db.get(empty)));
      assertEquals(0, db.list(KeyRange.all()).get(0).key().length, "it sorts before every other key");
      Transaction reader = db.begin();
      reader.get(empty);
      db.put(empty, of("changed"));
      reader.put(of("b"), of("x"));
      assertThrows(ConflictException.class, reader::commitSync);
      db.remove(empty);
      assertNull(db.get(empty));
    }
  }
}
