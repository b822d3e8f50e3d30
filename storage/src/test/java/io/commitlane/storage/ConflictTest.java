package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.commit.CommitPath;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class ConflictTest {
  @TempDir
  Path dir;

  private Database open(String name, OccValidation policy, int buckets) {
    CommitlaneSettings s = CommitlaneSettings.defaults().withOccValidation(policy).withOccLockBuckets(buckets);
    return Database.open(dir.resolve(name), DatabaseOptions.defaults().withWal(false).withSettings(s));
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void readWriteConflictIsDetected(OccValidation policy) {
    try (Database db = open("db", policy, 65_536)) {
      db.put(of("k"), of("0"));
      Transaction t1 = db.begin();
      t1.get(of("k"));
      t1.put(of("other"), of("x"));
      db.transact(t -> t.put(of("k"), of("1")));
      ConflictException e = assertThrows(ConflictException.class, t1::commitSync);
      assertTrue(e.isRetryable());
      assertEquals(t1.id(), e.transactionId());
      assertNull(db.get(of("other")), "nothing of a conflicting transaction is written");
      assertEquals(Transaction.State.FAILED, t1.state());
      assertEquals(1, db.stats().conflicts());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void writeWriteConflictIsDetectedForATransactionWithASnapshot(OccValidation policy) {
    try (Database db = open("db", policy, 65_536)) {
      Transaction t1 = db.begin();
      t1.getUntracked(of("elsewhere")); // its snapshot (and baseline) from here
      t1.put(of("k"), of("1"));
      db.begin().put(of("k"), of("2")).commitSync();
      assertThrows(ConflictException.class, t1::commitSync);
      assertEquals("2", str(db.get(of("k"))));
    }
  }

  static Stream<Arguments> policiesAndBlindWrites() {
    return Stream.of(OccValidation.values()).flatMap(p -> Stream.of(BlindWrites.values()).map(b -> Arguments.of(p, b)));
  }

  /** Its writes depend on no database state: it is ordered at its commit, after the write it raced. */
  @ParameterizedTest
  @MethodSource("policiesAndBlindWrites")
  void aTransactionThatReadNothingIsOrderedAtItsCommit(OccValidation policy, BlindWrites blindWrites) {
    CommitlaneSettings s = CommitlaneSettings.defaults().withOccValidation(policy).withOccBlindWrites(blindWrites);
    try (Database db = Database.open(dir.resolve("db"), DatabaseOptions.defaults().withWal(false).withSettings(s))) {
      Transaction t1 = db.begin().put(of("k"), of("1"));
      assertEquals("1", str(t1.get(of("k"))), "reading its own write reads no database state");
      long other = db.begin().put(of("k"), of("2")).commitSync().version();
      long mine = t1.commitSync().version();
      assertTrue(mine > other);
      assertEquals("1", str(db.get(of("k"))), "the later commit's write is the value");
      assertEquals(0, db.stats().conflicts());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void readOnlyTransactionsValidateTheirReads(OccValidation policy) {
    try (Database db = open("db", policy, 65_536)) {
      Transaction t1 = db.begin();
      t1.get(of("k"));
      db.put(of("k"), of("1"));
      assertThrows(ConflictException.class, t1::commitSync);
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void untrackedReadsDoNotConflict(OccValidation policy) {
    try (Database db = open("db", policy, 65_536)) {
      Transaction t1 = db.begin();
      t1.getUntracked(of("k"));
      t1.put(of("other"), of("x"));
      db.put(of("k"), of("1"));
      t1.commitSync();
      assertEquals("x", str(db.get(of("other"))));
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void sameKeyInTwoDatabasesOrTwoStoresDoesNotConflict(OccValidation policy) {
    try (Database a = open("a", policy, 16); Database b = open("b", policy, 16)) {
      Transaction ta = a.begin();
      ta.get(of("k"));
      ta.put(of("k"), of("a"));
      b.transact(t -> t.put(of("k"), of("b")));
      ta.commitSync();

      Store s1 = a.store("s1");
      Store s2 = a.store("s2");
      // With 16 buckets a key of s1 and the same key of s2 may share a bucket (a false conflict
      // is allowed there); pick the first key whose buckets differ, so the store is shown to be
      // part of the hash.
      CommitPath path = a.shared().commitPath();
      byte[] key = null;
      for (int i = 0; key == null; i++) {
        byte[] k = of("key" + i);
        if (path.bucketOf(s1, k) != path.bucketOf(s2, k)) {
          key = k;
        }
      }
      byte[] k = key;
      Transaction t1 = a.begin();
      t1.get(s1, k);
      t1.put(s1, k, of("1"));
      a.transact(t -> t.put(s2, k, of("2")));
      t1.commitSync();
      assertEquals("1", str(a.get(s1, k)));
      assertEquals("2", str(a.get(s2, k)));
      assertEquals(0, a.stats().conflicts());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void largeCommitsWorkWithFewBucketsAndConflictOnlyOnTheirKeys(OccValidation policy) {
    try (Database db = open("db", policy, 16)) {
      Transaction t = db.begin();
      for (int i = 0; i < 1024; i++) {
        t.get(of("k" + i));
        t.put(of("k" + i), of("v" + i));
      }
      t.commitSync();
      assertEquals("v1023", str(db.get(of("k1023"))));
      // Every one of the 16 buckets is now newer than transactions that began before, but only a
      // key that was written conflicts.
      Transaction untouched = db.begin();
      untouched.get(of("zzz"));
      untouched.put(of("zzz2"), of("x"));
      Transaction stale = db.begin();
      stale.get(of("k7"));
      stale.put(of("zzz3"), of("x"));
      Transaction again = db.begin();
      for (int i = 0; i < 1024; i++) {
        again.put(of("k" + i), of("w"));
      }
      again.commitSync();
      untouched.commitSync();
      assertThrows(ConflictException.class, stale::commitSync, "k7 was written after stale's snapshot");
      assertEquals(1, db.stats().conflicts());
      assertEquals(0, db.stats().conservativeConflicts());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void retryHelperRetriesOnAFreshSnapshotAndGivesUpWithTheCount(OccValidation policy) {
    try (Database db = open("db", policy, 65_536)) {
      int[] attempts = {0};
      long result = db.transact(t -> {
        long n = Bytes.toLong(t.get(of("n")));
        if (attempts[0]++ == 0) {
          db.put(of("n"), Bytes.ofLong(10)); // a concurrent change after our read: first attempt conflicts
        }
        t.put(of("n"), Bytes.ofLong(n + 1));
        return n + 1;
      });
      assertEquals(2, attempts[0]);
      assertEquals(11, result);

      ConflictException e = assertThrows(ConflictException.class, () -> db.transact(2, t -> {
        t.get(of("n"));
        db.put(of("n"), Bytes.ofLong(0));
        return t.put(of("n"), Bytes.ofLong(1));
      }));
      assertEquals(3, e.attempts());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void orderedBlindWritesNeverConflictButReadsStillDo(OccValidation policy) {
    CommitlaneSettings s = CommitlaneSettings.defaults().withOccValidation(policy).withOccLockBuckets(16)
        .withOccBlindWrites(BlindWrites.ORDERED);
    try (Database db = Database.open(dir.resolve("ordered"), DatabaseOptions.defaults().withWal(false).withSettings(s))) {
      Transaction blind = db.begin();
      for (int i = 0; i < 1024; i++) {
        blind.put(of("k" + i), of("blind"));
      }
      db.begin().put(of("k0"), of("other")).commitSync();
      long before = db.begin().put(of("x"), of("1")).commitSync().version();
      long version = blind.commitSync().version();
      assertTrue(version > before, "a blind write is ordered after the commits before it");
      assertEquals("blind", str(db.get(of("k0"))), "the later commit's write is the value");

      Transaction reader = db.begin();
      reader.get(of("k0"));
      reader.put(of("y"), of("1"));
      db.put(of("k0"), of("newer"));
      assertThrows(ConflictException.class, reader::commitSync, "reads are still validated");
      assertEquals(0 + 1, db.stats().conflicts());
    }
  }
}
