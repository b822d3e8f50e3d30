package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.commit.OrderedWrites;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Phantom protection, one step at a time: a tracked scan conflicts with a later commit that
 * inserts, removes or changes a key inside the interval it covered (up to where it stopped), and
 * with nothing outside it, whatever the bucket count (16 here: every key shares buckets).
 */
class RangeConflictTest {
  @TempDir
  Path dir;

  private Database open(OccValidation policy) {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false)
        .withSettings(CommitlaneSettings.defaults().withOccValidation(policy).withOccLockBuckets(16)));
  }

  private static void seed(Database db, String... keys) {
    for (String k : keys) {
      db.put(of(k), of("v"));
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void anInsertRemovalOrChangeInsideTheScannedRangeConflicts(OccValidation policy) {
    try (Database db = open(policy)) {
      seed(db, "a/1", "a/3");
      for (Runnable change : List.<Runnable>of(() -> db.put(of("a/2"), of("new")), () -> db.remove(of("a/3")),
          () -> db.put(of("a/1"), of("changed")))) {
        Transaction t = db.begin();
        assertEquals(2, t.count(KeyRange.prefix(of("a/"))));
        change.run();
        t.put(of("b/summary"), of("2"));
        assertThrows(ConflictException.class, t::commitSync);
        db.put(of("a/2"), of("v"));
        db.put(of("a/3"), of("v"));
        db.remove(of("a/2"));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void writesOutsideEveryScannedIntervalNeverConflict(OccValidation policy) {
    try (Database db = open(policy)) {
      seed(db, "a/1", "a/2", "c/1");
      for (int i = 0; i < 50; i++) {
        Transaction t = db.begin();
        t.list(KeyRange.prefix(of("a/")));
        db.put(of("b/" + i), of("x"));       // between the ranges
        db.put(of("c/" + i), of("x"));
        db.put(of("a"), of("x"));             // just below the prefix
        db.put(of("a0"), of("x"));            // just above it ('0' follows '/')
        t.put(of("a/new" + i), of("mine"));   // its own write inside its own range
        t.commitSync();
      }
      assertEquals(0, db.stats().conflicts());
      assertEquals(0, db.stats().conservativeConflicts());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aLimitedScanCoversOnlyUpToWhereItStopped(OccValidation policy) {
    try (Database db = open(policy)) {
      seed(db, "k1", "k2", "k3", "k4");
      Transaction forward = db.begin();
      assertEquals(List.of("k1", "k2"), keys(forward.list(KeyRange.prefix(of("k")).limit(2))));
      db.put(of("k3"), of("changed"));     // after where it stopped
      db.put(of("k25"), of("inserted"));   // past k2 too
      forward.put(of("x"), of("1"));
      forward.commitSync();

      Transaction reverse = db.begin();
      assertEquals(List.of("k4", "k3"), keys(reverse.list(KeyRange.prefix(of("k")).reverse().limit(2))));
      db.put(of("k1"), of("changed"));     // below where it stopped
      reverse.put(of("x"), of("2"));
      reverse.commitSync();

      Transaction inside = db.begin();
      inside.list(KeyRange.prefix(of("k")).limit(2));
      db.put(of("k15"), of("inserted"));   // between k1 and k2: inside
      inside.put(of("x"), of("3"));
      assertThrows(ConflictException.class, inside::commitSync);
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aCursorClosedEarlyCoversWhatItShowedAndAPeekCounts(OccValidation policy) {
    try (Database db = open(policy)) {
      seed(db, "k1", "k2", "k3");
      Transaction t = db.begin();
      try (Cursor c = t.scan(KeyRange.prefix(of("k")))) {
        c.next();
        assertTrue(c.hasNext()); // k2 was seen, though not returned
      }
      db.put(of("k3"), of("changed"));
      t.put(of("x"), of("1"));
      t.commitSync();

      Transaction u = db.begin();
      try (Cursor c = u.scan(KeyRange.prefix(of("k")))) {
        c.next();
        assertTrue(c.hasNext());
      }
      db.put(of("k2"), of("changed"));
      u.put(of("x"), of("2"));
      assertThrows(ConflictException.class, u::commitSync);
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void anUntrackedScanAllowsPhantomsAndAReadOnlyScannerIsValidated(OccValidation policy) {
    try (Database db = open(policy)) {
      seed(db, "a/1");
      Transaction untracked = db.begin();
      assertEquals(1, untracked.scanUntracked(KeyRange.prefix(of("a/"))).toList().size());
      db.put(of("a/2"), of("v"));
      untracked.put(of("count"), of("1"));
      untracked.commitSync();

      Transaction readOnly = db.begin();
      readOnly.count(KeyRange.prefix(of("a/")));
      db.put(of("a/3"), of("v"));
      assertThrows(ConflictException.class, readOnly::commitSync);
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void inAMergedGroupAnEarlierMembersInsertFailsALaterScannerAndALaterInsertIsOrderedAfter(OccValidation policy) {
    try (Database db = open(policy)) {
      seed(db, "a/1");
      Transaction inserter = db.begin().put(of("a/2"), of("v"));
      Transaction scanner = db.begin();
      scanner.count(KeyRange.prefix(of("a/")));
      scanner.put(of("count"), of("1"));
      Transaction later = db.begin().put(of("a/3"), of("v"));
      Transaction scanner2 = db.begin();
      scanner2.count(KeyRange.prefix(of("z/")));
      scanner2.put(of("z/count"), of("0"));
      GroupResult r = db.commitGroup(List.of(inserter, scanner, later, scanner2));
      assertTrue(r.isCommitted(0));
      assertInstanceOf(ConflictException.class, r.failure(1));
      assertTrue(r.isCommitted(2));
      assertTrue(r.isCommitted(3));

      Transaction first = db.begin();
      first.count(KeyRange.prefix(of("a/")));
      first.put(of("summary"), of("3"));
      Transaction second = db.begin().put(of("a/4"), of("v"));
      GroupResult r2 = db.commitGroup(List.of(first, second));
      assertTrue(r2.isCommitted(0) && r2.isCommitted(1), "a later member's insert is ordered after the scanner");
      assertTrue(r2.result(1).version() > r2.result(0).version());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aFirstScanAfterCommitsSinceAPointReadIsAConservativeConflictAndCounted(OccValidation policy) {
    try (Database db = open(policy)) {
      seed(db, "a/1");
      Transaction t = db.begin();
      t.get(of("elsewhere"));          // baseline taken; no transaction scans yet
      db.put(of("z"), of("unrelated"));  // not recorded: nobody scans
      t.count(KeyRange.prefix(of("a/")));
      t.put(of("x"), of("1"));
      assertThrows(ConflictException.class, t::commitSync);
      assertEquals(1, db.stats().conservativeConflicts());

      Transaction u = db.begin();
      u.count(KeyRange.prefix(of("a/")));  // its first read is the scan: exact
      db.put(of("z"), of("unrelated again"));
      u.put(of("x"), of("2"));
      u.commitSync();
      assertEquals(1, db.stats().conservativeConflicts());
      assertEquals("2", str(db.get(of("x"))));
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void announcedScansAndTheRetriesOfTransactValidateExactlyAfterAPointRead(OccValidation policy) {
    try (Database db = open(policy)) {
      seed(db, "a/1");
      Transaction announced = db.begin().expectScans();
      announced.get(of("elsewhere"));
      db.put(of("z"), of("unrelated"));
      announced.count(KeyRange.prefix(of("a/")));
      announced.put(of("x"), of("1"));
      announced.commitSync();
      assertEquals(0, db.stats().conservativeConflicts());

      int[] attempts = {0};
      long n = db.transact(txn -> {
        attempts[0]++;
        txn.get(of("elsewhere"));
        db.put(of("z"), of("unrelated " + attempts[0])); // a commit between the point read and the scan
        long count = txn.count(KeyRange.prefix(of("a/")));
        txn.put(of("x"), of("2"));
        return count;
      });
      assertEquals(1, n);
      assertEquals(2, attempts[0], "the first attempt conflicts conservatively, its retry is exact");
      assertEquals(1, db.stats().conservativeConflicts());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void theOrderedRecordRunsOnlyWhileATransactionScans(OccValidation policy) {
    try (Database db = open(policy)) {
      OrderedWrites ordered = db.shared().commitPath().orderedWrites();
      db.put(of("a"), of("1"));
      db.begin().put(of("b"), of("1")).commitSync();
      assertEquals(0, ordered.size());
      Transaction t = db.begin();
      t.count(KeyRange.all());
      db.put(of("c"), of("1"));
      assertEquals(1, ordered.size());
      t.abort();
      db.put(of("d"), of("1"));
      assertEquals(0, ordered.size(), "off again once no transaction scans");
    }
  }

  /**
   * The ordered record is bounded: when a scanner stays open while more keys are written than it
   * holds, it forgets the oldest and the scanner's commit is a conservative conflict, counted;
   * a scanner that starts after that validates exactly again.
   */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void theRecordStaysBoundedAndAScannerOlderThanWhatItForgotConflictsConservatively(OccValidation policy) {
    try (Database db = open(policy)) {
      Transaction old = db.begin();
      old.count(KeyRange.prefix(of("a/")));
      int perBatch = OrderedWrites.MAX_ENTRIES * 5 / 8;
      for (int round = 0; round < 2; round++) {
        Batch b = Batch.create();
        for (int i = 0; i < perBatch; i++) {
          b.put(db.defaultStore(), of("z/" + round + "/" + i), of("x"));
        }
        db.write(b); // outside the scanned range
      }
      OrderedWrites ordered = db.shared().commitPath().orderedWrites();
      assertTrue(ordered.size() <= OrderedWrites.MAX_ENTRIES, "held " + ordered.size());

      Transaction young = db.begin();
      young.count(KeyRange.prefix(of("a/")));
      db.put(of("z/after"), of("x"));
      young.put(of("y/young"), of("1"));
      young.commitSync();
      assertEquals(0, db.stats().conservativeConflicts());

      old.put(of("a/old"), of("1"));
      assertThrows(ConflictException.class, old::commitSync);
      assertEquals(1, db.stats().conservativeConflicts());
    }
  }

  private static List<String> keys(List<KeyValue> kvs) {
    return kvs.stream().map(kv -> str(kv.key())).toList();
  }
}
