package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.Counted;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.actors.internal.log.ReplayBacklog;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.NotADatabaseException;
import io.commitlane.storage.PathInUseException;
import io.commitlane.storage.RangeClear;
import io.commitlane.storage.ReadOnlyDatabaseException;
import io.commitlane.storage.RestoreOptions;
import io.commitlane.storage.Transaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Commitlane#openReadOnly}: a restored backup, open read-only and nothing else,
 * reads, scans, counts and reports stats through the facade and the protocol; every write is
 * refused typed (a failed stage, or a {@code READ_ONLY} reply); nothing in its directory changes;
 * a normal open afterwards replays its logs as usual.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ReadOnlyDatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  /** A database with two stores and a log, backed up and restored into {@code restored}. */
  private Path restoredBackup() throws Exception {
    Path source = dir.resolve("orders");
    BackupStore backups = BackupStore.at(dir.resolve("backups"));
    BackupInfo backup;
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(source)) {
      for (int i = 0; i < 20; i++) {
        Transaction t = db.begin().useLog("orders");
        t.put(b(String.format("order-%02d", i)), b("paid " + i));
        t.put(db.storage().store("users"), b("u" + i), b("user " + i));
        t.addLogEntry(b("order " + i));
        await(db.commit(t));
      }
      backup = db.backup(backups).get(1, TimeUnit.MINUTES);
    }
    Path restored = dir.resolve("restored");
    backups.restore(backup.id(), restored, RestoreOptions.defaults());
    return restored;
  }

  @Test
  void aRestoredBackupOpenReadOnlyReadsAndRefusesEveryWriteTyped() throws Exception {
    Path restored = restoredBackup();
    Map<String, String> filesBefore = files(restored);
    CommitlaneDatabase ro = Commitlane.get(testKit.system()).openReadOnly(restored);
    try {
      assertTrue(ro.isReadOnly());
      assertEquals("paid 7", s(ro.storage().get(b("order-07"))));
      assertEquals(20, ro.storage().count(KeyRange.all()));
      assertEquals(20, ro.storage().count(KeyRange.all().in(ro.storage().findStore("users").orElseThrow())));
      assertEquals(Map.of(), ro.replayedAtOpen(), "nothing is replayed");
      PipelineStats stats = ro.stats();
      assertEquals(0, stats.executorsStarted(), "no commit executor runs for a read-only database");
      assertTrue(stats.storage().health().isOk());

      // Through the protocol: reads answer, writes are refused READ_ONLY.
      TestProbe<DatabaseProtocol.ReadReply> reads = testKit.createTestProbe();
      ro.ref().tell(new DatabaseProtocol.Get(Key.of("users", b("u3")), 1, reads.ref()));
      assertEquals("user 3", s(reads.expectMessageClass(Values.class, WAIT).values().get(0)));
      TestProbe<DatabaseProtocol.ScanReply> scans = testKit.createTestProbe();
      ro.ref().tell(new DatabaseProtocol.Scan(ScanRange.prefix(null, b("order-1")), 100, 2, scans.ref()));
      assertEquals(10, scans.expectMessageClass(Page.class, WAIT).entries().size());
      TestProbe<DatabaseProtocol.CountReply> counts = testKit.createTestProbe();
      ro.ref().tell(new DatabaseProtocol.Count(ScanRange.all("users"), false, 3, counts.ref()));
      assertEquals(20, counts.expectMessageClass(Counted.class, WAIT).count());
      TestProbe<DatabaseProtocol.StatsReply> statsReplies = testKit.createTestProbe();
      ro.ref().tell(new DatabaseProtocol.GetStats(4, statsReplies.ref()));
      assertEquals("OK", statsReplies.expectMessageClass(DatabaseStats.class, WAIT).health());

      TestProbe<DatabaseProtocol.WriteReply> writes = testKit.createTestProbe();
      ro.ref().tell(new DatabaseProtocol.Write(List.of(Mutation.put(b("order-99"), b("x"))), null, 5, writes.ref()));
      assertReadOnly(expectFailed(writes, WAIT), 5);
      ro.ref().tell(new DatabaseProtocol.Write(List.of(Mutation.put("new-store", b("k"), b("x"))), null,
          RequestId.of("read-only-1"), 6, writes.ref()));
      assertReadOnly(expectFailed(writes, WAIT), 6);
      ro.ref().tell(new DatabaseProtocol.ConditionalWrite(List.of(Expectation.value(b("order-01"), b("paid 1"))),
          List.of(Mutation.put(b("order-01"), b("refunded"))), null, 7, writes.ref()));
      assertReadOnly(expectFailed(writes, WAIT), 7);
      ro.ref().tell(new DatabaseProtocol.Write(List.of(Mutation.put(b("order-97"), b("x"))), LogEntries.of("orders", b("logged")),
          13, writes.ref()));
      assertReadOnly(expectFailed(writes, WAIT), 13); // a logged write is refused as read-only too, not as a storage failure
      TestProbe<DatabaseProtocol.StoreReply> stores = testKit.createTestProbe();
      ro.ref().tell(new DatabaseProtocol.CreateStore("sessions", 8, stores.ref()));
      assertReadOnly(expectFailed(stores, WAIT), 8);
      ro.ref().tell(new DatabaseProtocol.DropStore("users", 9, stores.ref()));
      assertReadOnly(expectFailed(stores, WAIT), 9);
      TestProbe<DatabaseProtocol.BackupReply> backups = testKit.createTestProbe();
      ro.ref().tell(new DatabaseProtocol.Backup(dir.resolve("more-backups"), 11, backups.ref()));
      assertReadOnly(expectFailed(backups, WAIT), 11);
      TestProbe<DatabaseProtocol.CheckpointReply> checkpoints = testKit.createTestProbe();
      ro.ref().tell(new DatabaseProtocol.Checkpoint(dir.resolve("copy"), 12, checkpoints.ref()));
      assertReadOnly(expectFailed(checkpoints, WAIT), 12);
      Transaction built = ro.begin();
      built.put(b("order-98"), b("x"));
      ro.commit(built, 10, writes.ref());
      assertReadOnly(expectFailed(writes, WAIT), 10);

      // Through the facade: failed stages, nothing thrown on the caller's thread.
      Transaction t = ro.begin();
      t.put(b("order-97"), b("x"));
      refusedReadOnly(ro.commit(t));
      refusedReadOnly(ro.transactAsync(txn -> txn.put(b("order-96"), b("x"))));
      refusedReadOnly(ro.createStore("sessions"));
      refusedReadOnly(ro.dropStore("users"));
      refusedReadOnly(ro.compactAsync(KeyRange.all(), true));
      refusedReadOnly(ro.clearAsync(RangeClear.of(KeyRange.prefix(b("order-0")))));
      refusedReadOnly(ro.checkpoint(dir.resolve("copy")));
      refusedReadOnly(ro.backup(BackupStore.at(dir.resolve("more-backups"))));
      assertFalse(Files.exists(dir.resolve("copy")));
      CompletableFuture<Void> granted = new CompletableFuture<>();
      AdmissionTicket ticket = ro.awaitAdmission(() -> granted.complete(null));
      granted.get(30, TimeUnit.SECONDS);
      Transaction waited = ro.begin();
      waited.put(b("order-95"), b("x"));
      refusedReadOnly(ro.commit(waited, ticket));
      ReadOnlyDatabaseException log = assertThrows(ReadOnlyDatabaseException.class, () -> ro.transactionLog("orders"));
      assertTrue(log.getMessage().contains("transaction log 'orders'"), log.getMessage());
      assertEquals(null, ro.storage().get(b("order-99")), "nothing was written");
    } finally {
      await(ro.closeAsync());
    }
    assertEquals(filesBefore, files(restored), "a read-only open changes no file");

    try (CommitlaneDatabase rw = Commitlane.get(testKit.system()).open(restored)) {
      assertFalse(rw.isReadOnly());
      assertEquals("paid 19", s(rw.storage().get(b("order-19"))));
      await(PipelineTestSupport.put(rw, "after", "order-20", "paid 20"));
      assertTrue(rw.replayStatsAtOpen().containsKey("orders"), "the log is there, as the backup left it");
    }
  }

  /**
   * A read-only open replays nothing, so it lacks the writes of the logged commits RocksDB did not
   * hold yet; its stats say how many per log (what a normal open then replays), and so does the
   * count for a storage-only read-only handle (what {@code ./commitlane db stats} prints).
   */
  @Test
  void aReadOnlyOpenCountsTheLogRecordsANormalOpenWouldReplay() throws Exception {
    Path live = dir.resolve("live");
    Path image = dir.resolve("image");
    PipelineSettings walOff = PipelineSettings.fromConfig(com.typesafe.config.ConfigFactory.parseMap(Map.of("wal", "off"))
        .atPath("commitlane").withFallback(testKit.system().settings().config()));
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(live, walOff)) {
      for (int i = 0; i < 10; i++) {
        Transaction t = db.begin().useLog(i % 2 == 0 ? "orders" : "audit");
        t.put(b("flushed-" + i), b("v"));
        t.addLogEntry(b("entry"));
        await(db.commit(t));
      }
      db.storage().flush(); // RocksDB holds these ten
      for (int i = 0; i < 5; i++) {
        Transaction t = db.begin().useLog("orders");
        t.put(b("logged-" + i), b("v"));
        t.addLogEntry(b("entry"));
        await(db.commit(t));
      }
      Transaction unlogged = db.begin();
      unlogged.put(b("unlogged"), b("v")); // no log holds it: lost with the memtable, and not counted
      await(db.commit(unlogged));
      RecoveryRegressionTest.crashImage(live, image); // the last five are in the "orders" log only (WAL off)
    }
    CommitlaneDatabase ro = Commitlane.get(testKit.system()).openReadOnly(image);
    try {
      assertEquals(10, ro.storage().count(KeyRange.all()), "the read-only view lacks the records it did not apply");
      PipelineStats stats = ro.stats();
      assertEquals(Map.of("orders", 5L, "audit", 0L), stats.unappliedLogRecords());
      assertEquals(5, stats.unappliedLogRecordsTotal());
      assertTrue(stats.toString().contains("not applied"), stats.toString());
    } finally {
      ro.close();
    }
    try (io.commitlane.storage.Database storageOnly = io.commitlane.storage.Database.openReadOnly(image)) {
      assertEquals(Map.of("orders", 5L, "audit", 0L), ReplayBacklog.count(storageOnly));
    }
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(image, walOff)) {
      assertEquals(5, db.replayStatsAtOpen().get("orders").transactions(), "what the read-only open counted is what replay applies");
      assertEquals(15, db.storage().count(KeyRange.all()));
      assertEquals(Map.of(), db.stats().unappliedLogRecords(), "a normal open replayed them");
    }
    CommitlaneDatabase after = Commitlane.get(testKit.system()).openReadOnly(image);
    try {
      assertEquals(Map.of("orders", 0L, "audit", 0L), after.stats().unappliedLogRecords(), "nothing left once replayed");
    } finally {
      after.close();
    }
  }

  @Test
  void readOnlyAndReadWriteOpensOfOnePathExcludeEachOtherAndAMissingPathIsRefusedUntouched() throws Exception {
    Path path = dir.resolve("db");
    try (CommitlaneDatabase rw = Commitlane.get(testKit.system()).open(path)) {
      await(PipelineTestSupport.put(rw, "t", "a", "1"));
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> Commitlane.get(testKit.system()).openReadOnlyAsync(path).toCompletableFuture().get(30, TimeUnit.SECONDS));
      assertInstanceOf(PathInUseException.class, e.getCause());
      assertTrue(e.getCause().getMessage().contains("read-write"), e.getCause().getMessage());
    }
    CommitlaneDatabase first = Commitlane.get(testKit.system()).openReadOnly(path);
    CommitlaneDatabase second = Commitlane.get(testKit.system()).openReadOnly(path);
    try {
      assertNotSame(first, second);
      assertEquals(first.ref(), second.ref(), "one database per path, shared by the read-only handles");
      assertEquals("1", s(second.storage().get(b("a"))));
      assertThrows(PathInUseException.class, () -> Commitlane.get(testKit.system()).open(path));
    } finally {
      first.close();
      second.close();
    }
    try (CommitlaneDatabase rw = Commitlane.get(testKit.system()).open(path)) {
      assertEquals("1", s(rw.storage().get(b("a"))));
    }

    Path missing = dir.resolve("missing");
    NotADatabaseException none = assertThrows(NotADatabaseException.class,
        () -> Commitlane.get(testKit.system()).openReadOnly(missing));
    assertTrue(none.getMessage().contains("open read-only"), none.getMessage());
    assertFalse(Files.exists(missing), "a read-only open creates nothing");
    Files.createDirectories(missing);
    assertThrows(NotADatabaseException.class, () -> Commitlane.get(testKit.system()).openReadOnly(missing));
    assertEquals(List.of(), files(missing).keySet().stream().toList());
  }

  private static void assertReadOnly(FailedReply f, long correlation) {
    assertEquals(correlation, f.correlation());
    assertEquals(FailureReason.READ_ONLY, f.reason(), f.toString());
    assertFalse(f.retryable());
    assertTrue(f.message().contains("read-only"), f.message());
  }

  /** The stage was returned (nothing thrown) and fails with {@link ReadOnlyDatabaseException}. */
  private static void refusedReadOnly(CompletionStage<?> stage) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get(30, TimeUnit.SECONDS));
    assertInstanceOf(ReadOnlyDatabaseException.class, e.getCause(), e.getCause().toString());
  }

  /** Every file under {@code root}: its size and modification time. */
  private static Map<String, String> files(Path root) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
        out.put(root.relativize(p).toString(), a.size() + " " + a.lastModifiedTime().toMillis());
      }
    }
    return out;
  }
}
