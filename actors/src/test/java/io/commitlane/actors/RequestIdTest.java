package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.ConflictCause;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.GetStats;
import io.commitlane.actors.DatabaseProtocol.StatsReply;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.actors.internal.protocol.RequestLedger;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writes that carry a request id are applied once: a repeat is answered with the first outcome,
 * also while the first is still in flight and after the database was closed and opened again.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class RequestIdTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private CommitlaneDatabase open(Map<String, Object> more) {
    Map<String, Object> m = new java.util.HashMap<>(more);
    m.put("wal", "off");
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  private static Write write(String id, String key, String value, long correlation, TestProbe<WriteReply> to) {
    return new Write(List.of(Mutation.put(b(key), b(value))), LogEntries.of("orders", b(key + "=" + value)),
        id == null ? null : RequestId.of(id), correlation, to.ref());
  }

  /** The entries of log {@code orders}, in log order. */
  private static List<String> logged(CommitlaneDatabase db) throws Exception {
    List<String> out = new ArrayList<>();
    try (LogReader reader = db.transactionLog("orders").reader(ReadRequest.fromStart())) {
      for (LogRecord r; (r = reader.next()) != null; ) {
        r.entries().forEach(e -> out.add(java.nio.charset.StandardCharsets.UTF_8.decode(e.duplicate()).toString()));
      }
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aRepeatedIdIsAnsweredWithTheFirstOutcomeAndAppliedOnce(boolean conditional) throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      TestProbe<WriteReply> replies = testKit.createTestProbe();
      if (conditional) {
        db.ref().tell(new ConditionalWrite(List.of(Expectation.absent(b("k"))), List.of(Mutation.put(b("k"), b("first"))),
            LogEntries.of("orders", b("k=first")), RequestId.of("order-1"), 1, replies.ref()));
      } else {
        db.ref().tell(write("order-1", "k", "first", 1, replies));
      }
      Committed first = replies.expectMessageClass(Committed.class);
      // The repeat says something else: it is not applied, not checked against its expectations either.
      if (conditional) {
        db.ref().tell(new ConditionalWrite(List.of(Expectation.absent(b("k"))), List.of(Mutation.put(b("k"), b("second"))),
            LogEntries.of("orders", b("k=second")), RequestId.of("order-1"), 2, replies.ref()));
      } else {
        db.ref().tell(write("order-1", "k", "second", 2, replies));
      }
      Committed repeat = replies.expectMessageClass(Committed.class);
      assertEquals(2, repeat.correlation());
      assertEquals(first.stamp(), repeat.stamp());
      assertEquals(first.logPosition(), repeat.logPosition());
      assertEquals("first", s(db.storage().get(b("k"))));
      assertEquals(List.of("k=first"), logged(db));

      db.ref().tell(write("order-2", "k", "third", 3, replies)); // another id is another write
      assertEquals(3, replies.expectMessageClass(Committed.class).correlation());
      db.ref().tell(write(null, "k", "fourth", 4, replies)); // and no id: applied every time
      replies.expectMessageClass(Committed.class);
      db.ref().tell(write(null, "k", "fourth", 5, replies));
      replies.expectMessageClass(Committed.class);
      assertEquals(List.of("k=first", "k=third", "k=fourth", "k=fourth"), logged(db));
    }
  }

  /**
   * A repeat that arrives while the first attempt is held in the commit path, before its write
   * and after it, joins that attempt: it is not admitted, and it gets the first's outcome when
   * the first completes.
   */
  @ParameterizedTest
  @EnumSource(value = CommitStage.class, names = {"VALIDATED", "WRITTEN"})
  void aRepeatWhileTheFirstIsInFlightGetsItsOutcome(CommitStage heldAt) throws Exception {
    try (CommitlaneDatabase db = open(Map.of("write-groups.enabled", "off"))) {
      TestProbe<WriteReply> first = testKit.createTestProbe();
      TestProbe<WriteReply> repeat = testKit.createTestProbe();
      TestProbe<StatsReply> stats = testKit.createTestProbe();
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(heldAt, c -> true);
        db.ref().tell(write("order-1", "k", "first", 1, first));
        hold.awaitArrivals(1, Duration.ofSeconds(30));
        db.ref().tell(write("order-1", "k", "second", 2, repeat));
        db.ref().tell(new GetStats(3, stats.ref())); // answered after the repeat was handled (one mailbox)
        assertEquals(1, stats.expectMessageClass(DatabaseStats.class).admitted(), "the repeat was not admitted");
        hold.release();
        Committed a = first.expectMessageClass(Committed.class);
        Committed b = repeat.expectMessageClass(Committed.class);
        assertEquals(1, a.correlation());
        assertEquals(2, b.correlation());
        assertEquals(a.stamp(), b.stamp());
        assertEquals(a.logPosition(), b.logPosition());
      }
      assertEquals("first", s(db.storage().get(b("k"))));
      assertEquals(List.of("k=first"), logged(db));
    }
  }

  /** An attempt that wrote nothing leaves no record: the same id runs again. */
  @Test
  void anAttemptThatConflictedLeavesNoRecord() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      db.storage().put(b("k"), b("v1"));
      TestProbe<WriteReply> replies = testKit.createTestProbe();
      ConditionalWrite stale = new ConditionalWrite(List.of(Expectation.value(b("k"), b("v0"))), List.of(Mutation.put(b("k"), b("v2"))),
          null, RequestId.of("cas-1"), 1, replies.ref());
      db.ref().tell(stale);
      assertEquals(ConflictCause.EXPECTATIONS, replies.expectMessageClass(Conflicted.class).cause());
      db.ref().tell(new ConditionalWrite(List.of(Expectation.value(b("k"), b("v1"))), List.of(Mutation.put(b("k"), b("v2"))), null,
          RequestId.of("cas-1"), 2, replies.ref()));
      replies.expectMessageClass(Committed.class);
      assertEquals("v2", s(db.storage().get(b("k"))));
    }
  }

  /** After a clean close the record is on disk: a repeat gets the first's epoch and log position, applied nothing. */
  @Test
  void aRepeatAfterReopeningIsAnsweredFromTheRecordOnDisk() throws Exception {
    Committed first;
    TestProbe<WriteReply> replies = testKit.createTestProbe();
    try (CommitlaneDatabase db = open(Map.of())) {
      db.ref().tell(write("order-1", "k", "first", 1, replies));
      first = replies.expectMessageClass(Committed.class);
    }
    try (CommitlaneDatabase db = open(Map.of())) {
      db.ref().tell(write("order-1", "k", "second", 2, replies));
      Committed repeat = replies.expectMessageClass(Committed.class);
      assertEquals(new CommitStamp(first.stamp().ownerEpoch(), 0), repeat.stamp(), "the version is not kept across openings");
      assertEquals(first.logPosition(), repeat.logPosition());
      assertEquals("first", s(db.storage().get(b("k"))));
      assertEquals(List.of("k=first"), logged(db));
    }
  }

  /**
   * The first attempt is written to RocksDB but its log record is not (leaderless appends, the
   * WAL off): it fails as not durable. A repeat must not be answered Committed from the record
   * in RocksDB's memtable while the database stays open; after a crash and reopen it runs again
   * (the write was lost), and after a clean close and reopen it is answered from the record
   * (the close's flush kept the write).
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aRepeatIsNeverAnsweredCommittedForAFirstAttemptThatIsNotDurable(boolean crash) throws Exception {
    io.commitlane.txlog.internal.fs.FaultInjectingFileSystem fs = new io.commitlane.txlog.internal.fs.FaultInjectingFileSystem();
    PipelineSettings base = settings(testKit.system(), Map.of("wal", "off", "txlog.append", "leaderless"));
    PipelineSettings faulty = base.withLog(base.log().withFileSystem(fs));
    Path db1 = dir.resolve("db");
    Path image = dir.resolve("image");
    TestProbe<WriteReply> replies = testKit.createTestProbe();
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(db1, faulty);
    db.ref().tell(write("order-0", "before", "x", 1, replies));
    replies.expectMessageClass(Committed.class);
    fs.failNextWrite();
    db.ref().tell(write("order-1", "k", "first", 2, replies));
    FailedReply failed = expectFailed(replies);
    assertEquals(FailureReason.STORAGE, failed.reason());
    db.ref().tell(write("order-1", "k", "first", 3, replies));
    FailedReply refused = expectFailed(replies); // not durable: never answered Committed
    assertEquals(3, refused.correlation());
    assertTrue(refused.message().contains("reopen"), refused.message());
    if (crash) {
      RecoveryRegressionTest.crashImage(db1, image);
    }
    assertThrows(Exception.class, () -> db.closeAsync().toCompletableFuture().get());
    try (CommitlaneDatabase reopened = Commitlane.get(testKit.system()).open(crash ? image : db1,
        settings(testKit.system(), Map.of("wal", "off", "txlog.append", "leaderless")))) {
      assertEquals(crash ? null : "first", s(reopened.storage().get(b("k"))));
      reopened.ref().tell(write("order-1", "k", "first", 4, replies));
      replies.expectMessageClass(Committed.class);
      assertEquals("first", s(reopened.storage().get(b("k"))));
      assertEquals(crash ? List.of("k=first") : List.of(), logged(reopened).stream().filter(e -> e.startsWith("k=")).toList(),
          crash ? "the lost write ran again" : "answered from the record, applied once");
      reopened.ref().tell(write("order-1", "k", "first", 5, replies));
      replies.expectMessageClass(Committed.class);
    }
  }

  /**
   * {@code fsync} durability, the WAL off: the first attempt's RocksDB write returns (its value is
   * readable) but the fsync of its log record fails. It fails as written but not durable, and no
   * repeat is answered Committed while the database stays open: a power loss then loses the
   * write. After the power loss and a reopen the repeat runs again; after a clean close (its flush
   * kept the write) and a reopen it is answered from the record, applied once.
   */
  @ParameterizedTest(name = "txlog.append = {0}, power loss = {1}")
  @org.junit.jupiter.params.provider.CsvSource({"serialized, true", "serialized, false", "leaderless, true",
      "leaderless, false", "actor, true", "actor, false"})
  void aRepeatIsNeverAnsweredCommittedForAWriteWhoseFsyncFailed(String append, boolean powerLoss) throws Exception {
    io.commitlane.txlog.internal.fs.FaultInjectingFileSystem fs = new io.commitlane.txlog.internal.fs.FaultInjectingFileSystem();
    Map<String, Object> config = Map.of("wal", "off", "txlog.append", append, "txlog.durability", "fsync");
    PipelineSettings base = settings(testKit.system(), config);
    PipelineSettings faulty = base.withLog(base.log().withFileSystem(fs));
    Path db1 = dir.resolve("db");
    Path image = dir.resolve("image");
    TestProbe<WriteReply> replies = testKit.createTestProbe();
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(db1, faulty);
    db.ref().tell(write("order-0", "before", "x", 1, replies));
    replies.expectMessageClass(Committed.class);
    fs.failNextForce();
    db.ref().tell(write("order-1", "k", "first", 2, replies));
    Refusals.FailedReply failed = Refusals.expectFailed(replies);
    assertEquals(FailureReason.STORAGE, failed.reason());
    assertEquals("first", s(db.storage().get(b("k"))), "the write reached RocksDB: readers see it");
    db.ref().tell(write("order-1", "k", "first", 3, replies));
    Refusals.FailedReply refused = Refusals.failed(assertInstanceOf(WriteRefused.class,
        replies.expectMessageClass(WriteReply.class), "not durable: never answered Committed"));
    assertEquals(3, refused.correlation());
    assertTrue(refused.message().contains("reopen"), refused.message());
    assertTrue(failed.message().contains("was written but is not durable"), "not 'nothing written': " + failed.message());
    if (powerLoss) {
      fs.crash(); // the log loses what was not synced; RocksDB's memtable is not in the copy
      RecoveryRegressionTest.crashImage(db1, image);
    }
    assertThrows(Exception.class, () -> db.closeAsync().toCompletableFuture().get());
    try (CommitlaneDatabase reopened = Commitlane.get(testKit.system()).open(powerLoss ? image : db1,
        settings(testKit.system(), config))) {
      assertEquals("x", s(reopened.storage().get(b("before"))), "acknowledged before the failure");
      assertEquals(powerLoss ? null : "first", s(reopened.storage().get(b("k"))));
      reopened.ref().tell(write("order-1", "k", "first", 4, replies));
      replies.expectMessageClass(Committed.class);
      assertEquals("first", s(reopened.storage().get(b("k"))));
      // After the power loss the log lost the unsynced record and the repeat ran again; after the
      // clean close the record was in the file and the repeat was answered from it: once either way.
      assertEquals(List.of("k=first"), logged(reopened).stream().filter(e -> e.startsWith("k=")).toList());
    }
  }

  @Test
  void badIdsAreRefusedWhereTheRequestIsBuilt() {
    assertThrows(InvalidRequestException.class, () -> RequestId.of(""));
    assertThrows(InvalidRequestException.class, () -> RequestId.of("x".repeat(RequestId.MAX_BYTES + 1)));
    assertEquals(RequestId.MAX_BYTES, RequestId.of("x".repeat(RequestId.MAX_BYTES)).value().length());
  }

  /**
   * An id is never forgotten within its window, however many later writes come: while max-ids are
   * remembered a new id is refused as overloaded (retryable, nothing written, warned once a
   * minute, counted); records go only past the window, and their ids then run again.
   */
  @Test
  void idsWithinTheWindowAreNeverForgottenAndNewIdsAreRefusedWhileTheLedgerIsFull() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000);
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      RequestLedger ledger = new RequestLedger(db, new RequestIdSettings(Duration.ofSeconds(10), 3, Duration.ofMinutes(1)), now::get);
      try (Database.Registration hook = db.addCommitHook(ledger)) {
        TestProbe<WriteReply> replies = testKit.createTestProbe();
        for (int i = 0; i < 3; i++) {
          record(db, ledger, "id-" + i, replies);
          now.addAndGet(1000);
        }
        LoggingTestKit.warn("refused as overloaded").withLoggerName(RequestLedger.class.getName()).withOccurrences(1)
            .expect(testKit.system(), () -> {
              for (int attempt = 0; attempt < 2; attempt++) {
                assertNull(ledger.claim(RequestId.of("id-3"), 1, 7, replies.ref()::tell), "full: not run");
                FailedReply refused = expectFailed(replies);
                assertEquals(FailureReason.OVERLOADED, refused.reason());
                assertTrue(refused.retryable());
              }
              return null;
            });
        assertEquals(0, ledger.purge(), "all within the window: none is forgotten");
        assertNull(ledger.claim(RequestId.of("id-0"), 1, 8, replies.ref()::tell), "the oldest is still remembered");
        replies.expectMessageClass(Committed.class);

        now.addAndGet(8_500); // id-0 is now 11.5 s old, id-1 10.5 s, id-2 9.5 s
        assertEquals(2, ledger.purge());
        assertEquals(1, ledger.recordCount());
        RequestLedger.Attempt again = ledger.claim(RequestId.of("id-0"), 1, 9, replies.ref()::tell);
        assertNotNull(again, "past the window: runs again");
        again.tell(new Committed(9, new CommitStamp(1, 1), -1));
        replies.expectMessageClass(Committed.class);
        assertNotNull(ledger.claim(RequestId.of("id-3"), 1, 10, replies.ref()::tell), "room again: a new id runs");
        RequestIdStats stats = ledger.stats();
        assertEquals(2, stats.expired());
        assertEquals(2, stats.refusedFull());
        assertEquals(3, stats.maxIds());
      }
      RequestLedger reopened = new RequestLedger(db, RequestIdSettings.defaults());
      reopened.countRecords();
      assertEquals(1, reopened.recordCount());
      TestProbe<WriteReply> replies = testKit.createTestProbe();
      assertNull(reopened.claim(RequestId.of("id-2"), 1, 11, replies.ref()::tell), "kept on disk");
      assertEquals(new CommitStamp(1, 0), replies.expectMessageClass(Committed.class).stamp());
    }
  }

  /** Commits one write whose record holds {@code id}, as the request handler does. */
  private static void record(Database db, RequestLedger ledger, String id, TestProbe<WriteReply> replies) {
    RequestLedger.Attempt a = ledger.claim(RequestId.of(id), 1, 1, replies.ref()::tell);
    Transaction t = db.begin().put(b(id), b("v"));
    ledger.bind(t.id(), a);
    t.commitSync();
    ledger.unbind(t.id());
    a.tell(new Committed(1, new CommitStamp(1, 1), -1));
    replies.expectMessageClass(Committed.class);
  }
}
