package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cursors' lifetimes (closing the database or ending the transaction under them) and bad input. */
class RangeLifecycleTest {
  @TempDir
  Path dir;

  private Database open() {
    return Database.open(dir.resolve("db"), DatabaseOptions.defaults().withWal(false));
  }

  @Test
  void closingTheDatabaseWithCursorsOpenEndsThemAndLaterUseIsATypedError() {
    Database db = open();
    for (int i = 0; i < 10; i++) {
      db.put(of("k" + i), of("v" + i));
    }
    Store named = db.store("named");
    db.put(named, of("n"), of("1"));
    Cursor outside = db.scan(KeyRange.all());
    outside.next();
    Transaction txn = db.begin();
    Cursor inside = txn.scan(KeyRange.all().reverse());
    inside.next();
    Cursor onNamed = db.scan(KeyRange.all().in(named));
    Cursor neverUsed = txn.scanUntracked(KeyRange.prefix(of("k")));
    db.close(); // must neither hang nor leave an iterator over a closed database

    for (Cursor c : List.of(outside, inside, onNamed, neverUsed)) {
      assertThrows(DatabaseClosedException.class, c::hasNext);
      assertThrows(DatabaseClosedException.class, c::next);
      c.close(); // a no-op now
    }
    assertThrows(DatabaseClosedException.class, () -> txn.scan(KeyRange.all()));
    txn.close();

    try (Database again = open()) {
      assertEquals(10, again.count(KeyRange.prefix(of("k"))), "the database reopens intact");
    }
  }

  @Test
  void aCursorEndsWithItsTransaction() {
    try (Database db = open()) {
      db.put(of("a"), of("1"));
      db.put(of("b"), of("2"));
      Transaction committed = db.begin();
      Cursor c1 = committed.scan(KeyRange.all());
      c1.next();
      committed.put(of("c"), of("3"));
      committed.commitSync();
      CursorClosedException e = assertThrows(CursorClosedException.class, c1::next);
      assertTrue(e.getMessage().contains("transaction " + committed.id()), e.getMessage());

      Transaction aborted = db.begin();
      Cursor c2 = aborted.scanUntracked(KeyRange.all());
      aborted.abort();
      assertThrows(CursorClosedException.class, c2::hasNext);

      Cursor closed = db.scan(KeyRange.all());
      closed.close();
      assertThrows(CursorClosedException.class, closed::hasNext);
      closed.close();
    }
  }

  @Test
  void aCursorSeesItsTransactionsWritesAsTheyWereWhenItOpened() {
    try (Database db = open()) {
      db.put(of("a"), of("committed"));
      db.put(of("c"), of("committed"));
      try (Transaction t = db.begin()) {
        t.put(of("b"), of("own"));
        t.remove(of("c"));
        t.put(of("a"), of("overwritten"));
        try (Cursor c = t.scan(KeyRange.all())) {
          t.put(of("d"), of("later"));
          List<KeyValue> seen = c.toList();
          assertEquals(List.of("a=overwritten", "b=own"), seen.stream().map(kv -> str(kv.key()) + "=" + str(kv.value())).toList());
        }
        assertEquals(3, t.count(KeyRange.all()));
        assertEquals("later", str(t.multiGet(List.of(of("d"))).get(0)));
      }
    }
  }

  @Test
  void aCursorOnANamedStoreHoldsItsPhysicalDropUntilItCloses() throws Exception {
    try (Database db = open()) {
      Store s = db.store("held");
      db.put(s, of("k"), of("v"));
      Cursor c = db.scan(KeyRange.all().in(s));
      CompletableFuture<Void> dropped = db.dropStore("held").toCompletableFuture();
      assertThrows(StoreDroppedException.class, () -> db.scan(KeyRange.prefix(of("k")).in(s)));
      assertThrows(StoreDroppedException.class, () -> db.multiGet(s, List.of(of("k"))));
      assertFalse(dropped.isDone(), "the open cursor claims the store");
      assertEquals("k", str(c.next().key()));
      c.close();
      dropped.get(10, TimeUnit.SECONDS);
      try (Transaction t = db.begin()) {
        assertThrows(StoreDroppedException.class, () -> t.scan(KeyRange.prefix(of("k")).in(s)));
      }
    }
  }

  @Test
  void badRangesAreRefusedWhenBuiltWithTheProblemNamed() {
    InvalidRangeException above = assertThrows(InvalidRangeException.class, () -> KeyRange.all().from(of("b")).to(of("a")));
    assertTrue(above.getMessage().contains("above the upper bound"), above.getMessage());
    assertThrows(InvalidRangeException.class, () -> KeyRange.between(of("b"), of("a")));
    assertThrows(InvalidRangeException.class, () -> KeyRange.all().toInclusive(of("a")).fromExclusive(of("b")));
    InvalidRangeException zero = assertThrows(InvalidRangeException.class, () -> KeyRange.all().limit(0));
    assertTrue(zero.getMessage().contains("limit"), zero.getMessage());
    assertThrows(InvalidRangeException.class, () -> KeyRange.all().limit(-3));
    assertThrows(IllegalArgumentException.class, () -> KeyRange.all().limit(0), "a subtype of IllegalArgumentException");
    assertThrows(NullPointerException.class, () -> KeyRange.prefix(null));
    assertTrue(KeyRange.all().from(of("a")).to(of("a")).isEmpty(), "equal bounds with one exclusive: empty, allowed");
    assertTrue(KeyRange.all().fromExclusive(of("a")).toInclusive(of("a")).isEmpty());
    assertFalse(KeyRange.all().from(of("a")).toInclusive(of("a")).isEmpty());
    assertTrue(KeyRange.between(of("a"), of("c")).after(of("z")).isEmpty(), "resuming past the end: nothing left");

    try (Database db = open(); Database other = Database.open(dir.resolve("other"))) {
      Store foreign = other.store("s");
      assertThrows(IllegalArgumentException.class, () -> db.scan(KeyRange.all().in(foreign)));
      assertThrows(IllegalArgumentException.class, () -> db.begin().scan(KeyRange.all().in(foreign)));
      assertThrows(NullPointerException.class, () -> db.multiGet(java.util.Arrays.asList(of("a"), null)));
      try (Cursor c = db.scan(KeyRange.all())) {
        assertThrows(NoSuchElementException.class, c::next);
      }
      assertNull(db.multiGet(List.of(of("missing"))).get(0));
      assertEquals(0, db.estimateCount(KeyRange.prefix(of("x"))));
    }
  }

  /**
   * The rest of a limited range is what its limit has left: a cursor on the first five keys that
   * returned two has three to go, in a new cursor or a new transaction, never five more.
   */
  @Test
  void aCursorsRestIsWhatTheRangeHasLeftWithinItsLimit() {
    try (Database db = open()) {
      Batch b = Batch.create();
      for (int i = 0; i < 10; i++) {
        b.put(db.defaultStore(), of("k" + i), of("v" + i));
      }
      db.write(b);
      KeyRange firstFive = KeyRange.prefix(of("k")).limit(5);
      try (Cursor c = db.scan(firstFive)) {
        assertEquals(firstFive.toString(), c.rest().toString(), "before the first key: the whole range");
        c.next();
        c.next();
        assertEquals(List.of("k2", "k3", "k4"), keys(db.list(c.rest())), "exactly the rest of the first five");
        assertEquals(3, c.rest().limit());
        try (Transaction t = db.begin()) {
          assertEquals(3, t.count(c.rest()));
        }
      }
      try (Cursor c = db.scan(firstFive.reverse())) {
        c.next();
        assertEquals(List.of("k8", "k7", "k6", "k5"), keys(db.list(c.rest())), "reverse: the four below k9");
      }
      try (Cursor c = db.scan(firstFive)) {
        c.toList();
        assertTrue(c.rest().isEmpty(), "the limit is used up: nothing is left");
        assertEquals(List.of(), db.list(c.rest()));
      }
      try (Cursor c = db.scan(KeyRange.prefix(of("k")))) {
        c.next();
        assertEquals(9, db.count(c.rest()), "without a limit: every key after the last one returned");
      }
      assertEquals(List.of("k2", "k3"), keys(db.list(firstFive.limit(2).after(of("k1")))),
          "after(key) keeps the limit: the next page of the same size");
    }
  }

  private static List<String> keys(List<KeyValue> entries) {
    return entries.stream().map(kv -> str(kv.key())).toList();
  }

  @Test
  void estimateCountIsCheapAndRoughlyRight() {
    try (Database db = open()) {
      Batch b = Batch.create();
      for (int i = 0; i < 10_000; i++) {
        b.put(db.defaultStore(), of(String.format("a/%05d", i)), new byte[100]);
        b.put(db.defaultStore(), of(String.format("b/%05d", i)), new byte[100]);
      }
      db.write(b);
      db.flush();
      long all = db.estimateCount(KeyRange.all());
      long half = db.estimateCount(KeyRange.prefix(of("a/")));
      assertTrue(all > 15_000 && all < 25_000, "whole store: " + all);
      assertTrue(half > 5_000 && half < 15_000, "half of it: " + half);
      assertEquals(10_000, db.count(KeyRange.prefix(of("a/"))));
    }
  }
}
