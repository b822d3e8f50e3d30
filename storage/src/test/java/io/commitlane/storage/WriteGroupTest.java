package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.ofLong;
import static io.commitlane.storage.Bytes.str;
import static io.commitlane.storage.Bytes.toLong;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.internal.commit.CommitPath;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.internal.commit.WriteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Merged write groups: validation against the table and against earlier members, one write, atomicity. */
class WriteGroupTest {
  @TempDir
  Path dir;

  private Database open(OccValidation policy, BlindWrites blind) {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false)
        .withSettings(CommitlaneSettings.defaults().withOccValidation(policy).withOccBlindWrites(blind)));
  }

  /** Counts the RocksDB writes the commit path makes. */
  private static AtomicInteger countWrites(Database db) {
    AtomicInteger writes = new AtomicInteger();
    db.shared().commitPath().interceptWrites(w -> new CommitPath.Writer() {
      @Override
      public void write(WriteBuffer b) {
        writes.incrementAndGet();
        w.write(b);
      }

      @Override
      public void writeAll(List<WriteBuffer> bs) {
        writes.incrementAndGet();
        w.writeAll(bs);
      }
    });
    return writes;
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void independentMembersCommitWithOneWriteAndOrderedVersions(OccValidation policy) {
    try (Database db = open(policy, BlindWrites.CONFLICT)) {
      AtomicInteger writes = countWrites(db);
      List<Transaction> group = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        group.add(db.begin().put(of("k" + i), of("v" + i)).put(of("shared-" + i), of("x")));
      }
      GroupResult r = db.commitGroup(group);
      assertEquals(1, writes.get(), "five members, one RocksDB write");
      long previous = 0;
      for (int i = 0; i < 5; i++) {
        assertTrue(r.isCommitted(i), "member " + i + ": " + r.failure(i));
        assertTrue(r.result(i).version() > previous, "versions increase in member order");
        previous = r.result(i).version();
        assertEquals(Transaction.State.COMMITTED, group.get(i).state());
        assertEquals("v" + i, str(db.get(of("k" + i))));
      }
      StorageStats s = db.stats();
      assertEquals(1, s.groups());
      assertEquals(5, s.groupMembers());
      assertEquals(5, s.commits());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aLaterMemberWritingWhatAnEarlierMemberWroteConflicts(OccValidation policy) {
    try (Database db = open(policy, BlindWrites.CONFLICT)) {
      Transaction a = db.begin().put(of("k"), of("A"));
      Transaction b = db.begin();
      b.getUntracked(of("elsewhere")); // b has a snapshot: its writes are validated against it
      b.put(of("k"), of("B"));
      Transaction c = db.begin().put(of("other"), of("C"));
      GroupResult r = db.commitGroup(List.of(a, b, c));
      assertTrue(r.isCommitted(0));
      assertInstanceOf(ConflictException.class, r.failure(1), "B's snapshot predates A's write");
      assertTrue(r.isCommitted(2), "a conflict fails its member alone");
      assertEquals("A", str(db.get(of("k"))));
      assertEquals("C", str(db.get(of("other"))));
      assertEquals(Transaction.State.FAILED, b.state());
      assertEquals(1, db.stats().groupConflicts());
      assertEquals(1, db.stats().conflicts());
    }
  }

  /** A member that read nothing depends on no database state: it is ordered after the members before it. */
  @ParameterizedTest
  @EnumSource(BlindWrites.class)
  void aLaterMemberThatReadNothingCommitsAfterAnEarlierWriterOfItsKey(BlindWrites blind) {
    try (Database db = open(OccValidation.PARALLEL, blind)) {
      GroupResult r = db.commitGroup(List.of(db.begin().put(of("k"), of("A")), db.begin().put(of("k"), of("B"))));
      assertTrue(r.isCommitted(0) && r.isCommitted(1));
      assertTrue(r.result(1).version() > r.result(0).version());
      assertEquals("B", str(db.get(of("k"))));
      assertEquals(0, db.stats().conflicts());
    }
  }

  @Test
  void orderedBlindWritesToOneKeyBothCommitAndTheLaterMemberWins() {
    try (Database db = open(OccValidation.PARALLEL, BlindWrites.ORDERED)) {
      Transaction a = db.begin().put(of("k"), of("A"));
      Transaction b = db.begin().put(of("k"), of("B"));
      GroupResult r = db.commitGroup(List.of(a, b));
      assertTrue(r.isCommitted(0));
      assertTrue(r.isCommitted(1));
      assertTrue(r.result(1).version() > r.result(0).version());
      assertEquals("B", str(db.get(of("k"))), "the batch applies members in order");
    }
  }

  @ParameterizedTest
  @EnumSource(BlindWrites.class)
  void aMemberThatReadWhatAnEarlierMemberWritesConflicts(BlindWrites blind) {
    try (Database db = open(OccValidation.PARALLEL, blind)) {
      db.put(of("k"), ofLong(1));
      Transaction writer = db.begin().put(of("k"), ofLong(10));
      Transaction reader = db.begin();
      long seen = toLong(reader.get(of("k")));
      reader.put(of("copy"), ofLong(seen));
      GroupResult r = db.commitGroup(List.of(writer, reader));
      assertTrue(r.isCommitted(0));
      assertInstanceOf(ConflictException.class, r.failure(1),
          "the reader saw 1, but in commit order it comes after the write of 10");
      assertNull(db.get(of("copy")));
    }
  }

  @Test
  void aReaderBeforeTheWriterInTheGroupCommits() {
    try (Database db = open(OccValidation.PARALLEL, BlindWrites.CONFLICT)) {
      db.put(of("k"), ofLong(1));
      Transaction reader = db.begin();
      reader.put(of("copy"), ofLong(toLong(reader.get(of("k")))));
      Transaction writer = db.begin().put(of("k"), ofLong(10));
      GroupResult r = db.commitGroup(List.of(reader, writer));
      assertTrue(r.isCommitted(0), "reading 1 then the write of 10 is a serial order");
      assertTrue(r.isCommitted(1));
      assertEquals(1, toLong(db.get(of("copy"))));
      assertEquals(10, toLong(db.get(of("k"))));
    }
  }

  @Test
  void aMemberStaleAgainstCommittedDataFailsAloneAndDoesNotBlockLaterMembers() {
    try (Database db = open(OccValidation.SERIAL, BlindWrites.CONFLICT)) {
      Transaction stale = db.begin();
      stale.get(of("k"));
      stale.put(of("k"), of("stale"));
      db.put(of("k"), of("outside")); // committed after stale's snapshot
      Transaction later = db.begin().put(of("k"), of("later"));
      GroupResult r = db.commitGroup(List.of(stale, later));
      assertInstanceOf(ConflictException.class, r.failure(0));
      assertTrue(r.isCommitted(1), "a failed member's writes do not count against later members");
      assertEquals("later", str(db.get(of("k"))));
      assertEquals(0, db.stats().groupConflicts(), "that conflict was with committed data, not the group");
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aFailedWriteFailsEveryMemberAndLeavesNothingVisible(OccValidation policy) {
    try (Database db = open(policy, BlindWrites.CONFLICT)) {
      List<String> aborted = new ArrayList<>();
      db.addCommitHook(new CommitHook() {
        @Override
        public void aborted(PendingCommit commit, Throwable cause) {
          aborted.add(String.valueOf(commit.tag()));
        }
      });
      StorageException injected = new StorageException("injected write failure", new org.rocksdb.RocksDBException("IO error: disk full"));
      db.shared().commitPath().interceptWrites(w -> new CommitPath.Writer() {
        @Override
        public void write(WriteBuffer b) {
          w.write(b);
        }

        @Override
        public void writeAll(List<WriteBuffer> bs) {
          throw injected;
        }
      });
      Transaction a = db.begin().tag("a").put(of("a1"), of("x")).put(of("a2"), of("x"));
      Transaction b = db.begin().tag("b").put(of("b1"), of("x"));
      Transaction early = db.begin(); // its snapshot predates the failed group
      early.get(of("a1"));
      early.put(of("a1"), of("early"));
      GroupResult r = db.commitGroup(List.of(a, b));
      assertSame(injected, r.failure(0));
      assertSame(injected, r.failure(1));
      assertEquals(List.of("a", "b"), aborted, "each member's log record is unwound");
      assertNull(db.get(of("a1")));
      assertNull(db.get(of("a2")));
      assertNull(db.get(of("b1")));
      assertEquals(Transaction.State.FAILED, a.state());
      early.commitSync(); // nothing was stamped: no conflict with a group that never wrote
      assertEquals("early", str(db.get(of("a1"))));
    }
  }

  /**
   * A failed group write whose first member cannot be undone: the other members are still undone,
   * the first one's outcome is unknown, and the database refuses every later commit until reopened.
   */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aMemberThatCannotBeUndoneStillLetsTheOthersBeUndoneAndStopsTheDatabase(OccValidation policy) {
    try (Database db = open(policy, BlindWrites.CONFLICT)) {
      List<String> aborted = new ArrayList<>();
      db.addCommitHook(new CommitHook() {
        @Override
        public void aborted(PendingCommit commit, Throwable cause) {
          aborted.add(String.valueOf(commit.tag()));
          if ("a".equals(commit.tag())) {
            throw new IllegalStateException("injected: the abort marker cannot be written");
          }
        }
      });
      StorageException injected = new StorageException("injected write failure", new org.rocksdb.RocksDBException("IO error: disk full"));
      db.shared().commitPath().interceptWrites(w -> new CommitPath.Writer() {
        @Override
        public void write(WriteBuffer b) {
          w.write(b);
        }

        @Override
        public void writeAll(List<WriteBuffer> bs) {
          throw injected;
        }
      });
      Transaction a = db.begin().tag("a").put(of("a1"), of("x"));
      Transaction b = db.begin().tag("b").put(of("b1"), of("x"));
      Transaction c = db.begin().tag("c").put(of("c1"), of("x"));
      GroupResult r = db.commitGroup(List.of(a, b, c));
      assertEquals(List.of("a", "b", "c"), aborted, "every member is undone, also after one that could not be");
      CommitOutcomeUnknownException unknown = assertInstanceOf(CommitOutcomeUnknownException.class, r.failure(0));
      assertEquals(a.id(), unknown.transactionId());
      assertSame(injected, r.failure(1));
      assertSame(injected, r.failure(2));
      DatabaseStoppedException stopped = assertThrows(DatabaseStoppedException.class,
          () -> db.begin().put(of("later"), of("x")).commitSync());
      assertSame(unknown, stopped.getCause());
      assertThrows(DatabaseStoppedException.class, () -> db.put(of("plain"), of("x")), "plain writes too");
      GroupResult later = db.commitGroup(List.of(db.begin().put(of("g"), of("x"))));
      assertInstanceOf(DatabaseStoppedException.class, later.failure(0), "groups too");
      assertNull(db.get(of("later")));
    }
    try (Database db = open(policy, BlindWrites.CONFLICT)) {
      db.begin().put(of("later"), of("x")).commitSync();
      assertEquals("x", str(db.get(of("later"))), "a reopened database takes commits again");
    }
  }

  @Test
  void aHookFailureFailsItsMemberAloneAndHooksSeeMembersInOrder() {
    try (Database db = open(OccValidation.PARALLEL, BlindWrites.CONFLICT)) {
      List<String> order = new ArrayList<>();
      db.addCommitHook(new CommitHook() {
        @Override
        public void beforeWrite(PendingCommit commit) {
          if ("bad".equals(commit.tag())) {
            throw new IllegalStateException("log full");
          }
          order.add("before " + commit.tag());
        }

        @Override
        public void afterWrite(PendingCommit commit) {
          order.add("after " + commit.tag());
        }
      });
      Transaction one = db.begin().tag("one").put(of("1"), of("x"));
      Transaction bad = db.begin().tag("bad").put(of("2"), of("x"));
      Transaction three = db.begin().tag("three").put(of("3"), of("x"));
      GroupResult r = db.commitGroup(List.of(one, bad, three));
      assertTrue(r.isCommitted(0));
      assertInstanceOf(IllegalStateException.class, r.failure(1));
      assertTrue(r.isCommitted(2));
      assertNull(db.get(of("2")));
      assertEquals(List.of("before one", "before three", "after one", "after three"), order);
    }
  }

  @Test
  void emptyClosedAndForeignMembersAreResolvedWithoutHarmingTheRest(@TempDir Path otherDir) {
    try (Database db = open(OccValidation.PARALLEL, BlindWrites.CONFLICT);
        Database other = Database.open(otherDir)) {
      Database second = Database.open(dir, db.options()); // another handle of the same database
      Transaction closedHandle = second.begin().put(of("c"), of("x"));
      second.close();
      Transaction empty = db.begin();
      Transaction foreign = other.begin().put(of("f"), of("x"));
      Transaction good = db.begin().put(of("g"), of("x"));
      GroupResult r = db.commitGroup(List.of(empty, closedHandle, foreign, good));
      assertTrue(r.isCommitted(0));
      assertEquals(0, r.result(0).version(), "nothing to write: committed without a version");
      assertInstanceOf(DatabaseClosedException.class, r.failure(1));
      assertInstanceOf(IllegalArgumentException.class, r.failure(2));
      assertTrue(r.isCommitted(3));
      assertEquals("x", str(db.get(of("g"))));
      assertNull(other.get(of("f")));
      assertFalse(db.stats().groupMembers() > 4);
    }
  }

  /**
   * Counters incremented by read-modify-write transactions committed in random groups (every
   * member's snapshot predates its group): the final sum equals the committed increments.
   */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void noLostUpdateAcrossRandomGroups(OccValidation policy) {
    try (Database db = open(policy, BlindWrites.CONFLICT)) {
      Random random = new Random(42);
      int counters = 4;
      long committed = 0;
      long groupConflicts = 0;
      for (int round = 0; round < 300; round++) {
        int size = 1 + random.nextInt(8);
        List<Transaction> group = new ArrayList<>();
        for (int m = 0; m < size; m++) {
          Transaction t = db.begin();
          byte[] key = of("c" + random.nextInt(counters));
          t.put(key, ofLong(toLong(t.get(key)) + 1));
          group.add(t);
        }
        GroupResult r = db.commitGroup(group);
        for (int m = 0; m < size; m++) {
          if (r.isCommitted(m)) {
            committed++;
          } else {
            assertInstanceOf(ConflictException.class, r.failure(m));
            groupConflicts++;
          }
        }
      }
      long sum = 0;
      for (int c = 0; c < counters; c++) {
        sum += toLong(db.get(of("c" + c)));
      }
      assertEquals(committed, sum, "every committed increment is in the counters, and nothing else");
      assertTrue(groupConflicts > 0, "the schedule did put two increments of one counter in a group");
      assertEquals(groupConflicts, db.stats().groupConflicts());
    }
  }

  /**
   * A store dropped while a group forms: the member that writes it fails alone with the typed
   * error and claims nothing; a member that claimed it before the drop (a pipeline's admission)
   * still commits, and the physical drop waits for it.
   */
  @Test
  void aMemberWritingADroppedStoreFailsAloneAndAnEarlierClaimHoldsTheDrop() throws Exception {
    try (Database db = open(OccValidation.PARALLEL, BlindWrites.CONFLICT)) {
      Store doomed = db.store("doomed");
      Transaction admitted = db.begin().put(doomed, of("a"), of("x"));
      StoreClaims claims = admitted.claimStores(); // as a pipeline does at admission
      Transaction late = db.begin().put(doomed, of("b"), of("x"));
      Transaction other = db.begin().put(of("k"), of("v"));
      java.util.concurrent.CompletableFuture<Void> dropped = db.dropStore("doomed").toCompletableFuture();
      assertFalse(dropped.isDone(), "the admitted commit's claim holds the physical drop");
      GroupResult r = db.commitGroup(List.of(admitted, late, other));
      assertTrue(r.isCommitted(0), "claimed before the drop: written into the store that still exists");
      assertInstanceOf(StoreDroppedException.class, r.failure(1));
      assertTrue(r.isCommitted(2));
      assertEquals("v", str(db.get(of("k"))));
      claims.release(); // idempotent: the group released it already
      dropped.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertFalse(db.findStore("doomed").isPresent());
    }
  }
}
