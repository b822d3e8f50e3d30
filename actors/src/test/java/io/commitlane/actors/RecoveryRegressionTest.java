package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.storage.CommitOutcomeUnknownException;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.DatabaseStoppedException;
import io.commitlane.storage.NotDurableException;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogDamage;
import io.commitlane.txlog.LogDamagedException;
import io.commitlane.txlog.LogIOException;
import io.commitlane.txlog.LogInspector;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import io.commitlane.txlog.TransactionLogException;
import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Reopening never goes back in time, and what cannot be vouched for is never acknowledged: one
 * test per way this used to fail. A "crash image" is a copy of a running database's directory: it
 * holds what a kill -9 would leave (every write reached the OS, nothing RocksDB kept in memory).
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
@ParameterizedClass(name = "txlog.append = {0}, wal = {1}")
@CsvSource({"serialized, off", "serialized, on", "leaderless, off", "leaderless, on", "actor, off", "actor, on"})
class RecoveryRegressionTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @Parameter(0) String append;
  @Parameter(1) String wal;

  @TempDir Path dir;

  private PipelineSettings settings(Map<String, Object> more) {
    Map<String, Object> m = new HashMap<>(more);
    m.putIfAbsent("commit-threads", 1);
    m.put("wal", wal);
    m.put("txlog.append", append);
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane")
        .withFallback(testKit.system().settings().config()));
  }

  private CommitlaneDatabase open(Path path) {
    return Commitlane.get(testKit.system()).open(path, settings(Map.of()));
  }

  private static CompletionStage<CommitResult> write(CommitlaneDatabase db, String log, String key, String value) {
    Transaction t = db.begin();
    if (log != null) {
      t.useLog(log).addLogEntry(b(key + "=" + value));
    }
    if (value == null) {
      t.remove(b(key));
    } else {
      t.put(b(key), b(value));
    }
    return db.commit(t);
  }

  private static String get(CommitlaneDatabase db, String key) {
    return s(db.storage().get(b(key)));
  }

  @Test
  void aCleanReopenNeverPutsBackAValueThatALaterUnloggedCommitReplaced() throws Exception {
    try (CommitlaneDatabase db = open(dir)) {
      await(write(db, "orders", "removed", "old"));
      await(write(db, "orders", "replaced", "old"));
      await(write(db, null, "removed", null));
      await(write(db, null, "replaced", "new"));
      db.storage().put(b("plain"), b("new")); // non-transactional too
      await(write(db, "orders", "logged-last", "x"));
    }
    for (int round = 0; round < 2; round++) {
      try (CommitlaneDatabase db = open(dir)) {
        assertNull(get(db, "removed"), "round " + round);
        assertEquals("new", get(db, "replaced"), "round " + round);
        assertEquals("x", get(db, "logged-last"));
        assertEquals(0, db.replayStatsAtOpen().get("orders").transactions(), "a clean close leaves nothing to replay");
      }
    }
  }

  @Test
  void twoLogsReplayInCommitOrderAfterACleanCloseAndAfterACrash() throws Exception {
    Path image = dir.resolve("image");
    Path db1 = dir.resolve("db");
    try (CommitlaneDatabase db = open(db1)) {
      // "zeta" sorts after "alpha", and so do hash orders of these names: commit order must win.
      await(write(db, "zeta", "k", "first"));
      await(write(db, "alpha", "k", "second"));
      await(write(db, "zeta", "j", "one"));
      await(write(db, "alpha", "j", "two"));
      await(write(db, "zeta", "j", "three"));
      crashImage(db1, image);
    }
    try (CommitlaneDatabase db = open(db1)) {
      assertEquals("second", get(db, "k"));
      assertEquals("three", get(db, "j"));
    }
    try (CommitlaneDatabase db = open(image)) {
      assertEquals("second", get(db, "k"));
      assertEquals("three", get(db, "j"));
      if (wal.equals("off")) {
        assertEquals(3, db.replayStatsAtOpen().get("zeta").transactions());
        assertEquals(2, db.replayStatsAtOpen().get("alpha").transactions());
      } else {
        assertEquals(3, db.replayStatsAtOpen().get("zeta").alreadyDurable(), "RocksDB's own WAL held them");
      }
    }
  }

  /**
   * What recovery.md promises after a kill, per configuration: with the WAL on, a prefix of commit
   * order; with it off, the logged commits in order, and the unlogged ones only up to the last
   * flush, so a later logged commit survives an earlier acknowledged unlogged one.
   */
  @Test
  void afterAKillTheUnloggedCommitsOfTheWalOffAreKeptOnlyUpToTheLastFlush() throws Exception {
    Path db1 = dir.resolve("db");
    Path image = dir.resolve("image");
    try (CommitlaneDatabase db = open(db1)) {
      await(write(db, "orders", "a", "logged-1"));
      await(write(db, null, "b", "unlogged-flushed"));
      db.storage().flush();
      await(write(db, null, "b", "unlogged-after-the-flush"));
      await(write(db, null, "c", "unlogged-after-the-flush"));
      await(write(db, "orders", "c", "logged-2")); // replaces the unlogged c
      await(write(db, "orders", "d", "logged-3"));
      crashImage(db1, image);
    }
    try (CommitlaneDatabase db = open(image)) {
      assertEquals("logged-1", get(db, "a"));
      assertEquals("logged-2", get(db, "c"));
      assertEquals("logged-3", get(db, "d"));
      assertEquals(wal.equals("on") ? "unlogged-after-the-flush" : "unlogged-flushed", get(db, "b"),
          "with the WAL off an acknowledged unlogged commit after the last flush is lost, later logged ones are not");
    }
  }

  @Test
  void afterACrashWithTheWalOnReplayDoesNotOverwriteWhatRocksDbRecovered() throws Exception {
    Path image = dir.resolve("image");
    Path db1 = dir.resolve("db");
    try (CommitlaneDatabase db = open(db1)) {
      await(write(db, "orders", "k", "old"));
      await(write(db, null, "k", null));
      await(write(db, null, "j", "unlogged"));
      crashImage(db1, image);
    }
    try (CommitlaneDatabase db = open(image)) {
      if (wal.equals("on")) {
        assertNull(get(db, "k"), "the unlogged remove is in RocksDB's WAL: the older logged value must not return");
        assertEquals("unlogged", get(db, "j"));
        assertEquals(1, db.replayStatsAtOpen().get("orders").alreadyDurable());
      } else {
        // WAL off: unlogged commits are not durable until a flush; the logged one is replayed.
        assertEquals("old", get(db, "k"));
        assertEquals(1, db.replayStatsAtOpen().get("orders").transactions());
      }
    }
  }

  @Test
  void aDeletedMiddleSegmentStopsReplayThereReportsItAndHidesWhatWasNotRestored() throws Exception {
    Path image = dir.resolve("image");
    Path db1 = dir.resolve("db");
    int n = 12;
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(db1,
        settings(Map.of("txlog.max-segment-size", "4 KiB")))) {
      for (int i = 0; i < n; i++) {
        Transaction t = db.begin().useLog("orders");
        t.addLogEntry(new byte[1000]);
        t.put(b("k" + i), b("v" + i));
        await(db.commit(t));
      }
      crashImage(db1, image);
    }
    Path segments = image.resolve("txlog/orders");
    List<Path> files;
    try (Stream<Path> s = Files.list(segments)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".txlog")).sorted().toList();
    }
    assertTrue(files.size() >= 3, files.toString());
    Files.delete(files.get(1));
    assertEquals(LogInspector.CORRUPT, LogInspector.run(new String[] {image.toString()}, quiet(), quiet()),
        "inspect finds the hole (given the database directory)");

    LogDamagedException refused = assertThrows(LogDamagedException.class, () -> Commitlane.get(testKit.system()).open(image, settings(Map.of("txlog.recovery", "absolute-consistency"))));
    assertTrue(refused.getMessage().contains("MISSING_SEGMENTS"), refused.getMessage());

    try (CommitlaneDatabase db = open(image)) {
      ReplayStats stats = db.replayStatsAtOpen().get("orders");
      assertEquals(LogDamage.Kind.MISSING_SEGMENTS, stats.damage().get(0).kind());
      assertFalse(stats.complete());
      int kept = 0;
      while (kept < n && get(db, "k" + kept) != null) {
        kept++;
      }
      for (int i = kept; i < n; i++) {
        assertNull(get(db, "k" + i), "nothing after the hole is applied (k" + i + ")");
      }
      if (wal.equals("off")) {
        assertTrue(kept > 0 && kept < n, "kept " + kept);
        assertEquals(kept, stats.transactions());
        assertTrue(stats.notReplayed() > 0, stats.toString());
        try (LogReader reader = db.transactionLog("orders").reader(ReadRequest.fromStart())) {
          List<Long> seen = new ArrayList<>();
          for (LogRecord r = reader.next(); r != null; r = reader.next()) {
            seen.add(r.transactionId());
          }
          assertEquals(kept, seen.size(), "readers never return a record whose data was not restored");
        }
      } else {
        assertEquals(n, kept, "with the WAL on RocksDB held every commit: nothing was lost");
      }
    }
    try (CommitlaneDatabase db = open(image)) {
      assertTrue(db.replayStatsAtOpen().get("orders").complete(), "the damage is behind the flushed position now");
    }
  }

  @Test
  void strayEntriesUnderTheLogDirectoryAreLeftAloneButAFileForALogIsRefused() throws Exception {
    try (CommitlaneDatabase db = open(dir)) {
      await(write(db, "orders", "k", "v"));
    }
    Files.createDirectories(dir.resolve("txlog/lost+found"));
    try (CommitlaneDatabase db = open(dir)) {
      assertEquals("v", get(db, "k"));
      assertEquals(List.of("orders"), List.copyOf(db.replayStatsAtOpen().keySet()));
    }
    Files.writeString(dir.resolve("txlog/payments"), "not a directory");
    TransactionLogException e = assertThrows(TransactionLogException.class, () -> open(dir));
    assertTrue(e.getMessage().contains("payments"), e.getMessage());
    Files.delete(dir.resolve("txlog/payments"));
  }

  @Test
  void aFailedLogWriteIsNeverAcknowledgedAndCloseSaysTheLogFailed() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    PipelineSettings base = settings(Map.of());
    PipelineSettings faulty = base.withLog(base.log().withFileSystem(fs));
    List<String> acknowledged = new ArrayList<>();
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, faulty);
    await(write(db, "orders", "before", "1"));
    acknowledged.add("before");
    fs.failNextWrite();
    ExecutionException failed = assertThrows(ExecutionException.class, () -> await(write(db, "orders", "failed", "1")));
    if (append.equals("serialized")) {
      // Written to the file under the commit's locks: the failure comes before the RocksDB write,
      // nothing is written, and the log stays usable.
      assertInstanceOf(LogIOException.class, failed.getCause());
      assertNull(get(db, "failed"));
      await(write(db, "orders", "after", "1"));
      acknowledged.add("after");
      db.close();
    } else {
      // Copied to a buffer under the locks, written before the acknowledgement: the commit is in
      // RocksDB but not durable, so it fails; the log stops, and so does every later logged commit.
      assertInstanceOf(NotDurableException.class, failed.getCause());
      assertThrows(ExecutionException.class, () -> await(write(db, "orders", "after", "1")));
      ExecutionException close = assertThrows(ExecutionException.class,
          () -> db.closeAsync().toCompletableFuture().get());
      assertInstanceOf(TransactionLogException.class, close.getCause());
    }
    try (CommitlaneDatabase reopened = open(dir)) {
      for (String k : acknowledged) {
        assertEquals("1", get(reopened, k), k);
      }
    }
  }

  @Test
  void aFailedFsyncIsNeverAcknowledged() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    PipelineSettings base = settings(Map.of());
    PipelineSettings faulty = base.withLog(base.log().withFileSystem(fs).withDurability(Durability.FSYNC));
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, faulty);
    await(write(db, "orders", "before", "1"));
    fs.failNextForce();
    ExecutionException failed = assertThrows(ExecutionException.class, () -> await(write(db, "orders", "failed", "1")));
    // The fsync comes after the RocksDB write in every mode: written, but not vouched for.
    assertInstanceOf(NotDurableException.class, failed.getCause());
    assertInstanceOf(LogIOException.class, failed.getCause().getCause());
    assertEquals("1", get(db, "failed"), "readable, yet not acknowledged");
    assertThrows(ExecutionException.class, () -> db.closeAsync().toCompletableFuture().get());
    try (CommitlaneDatabase reopened = open(dir)) {
      assertEquals("1", get(reopened, "before"));
    }
  }

  /** {@link CommitlaneDatabase#commitSync} waits for the fsync too, and says the same when it fails. */
  @Test
  void aSynchronousCommitWhoseFsyncFailsIsWrittenButNotDurable() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    PipelineSettings base = settings(Map.of());
    PipelineSettings faulty = base.withLog(base.log().withFileSystem(fs).withDurability(Durability.FSYNC));
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, faulty);
    await(write(db, "orders", "before", "1"));
    fs.failNextForce();
    Transaction t = db.begin().useLog("orders").addLogEntry(b("k=1"));
    t.put(b("k"), b("1"));
    NotDurableException e = assertThrows(NotDurableException.class, () -> db.commitSync(t));
    assertInstanceOf(LogIOException.class, e.getCause());
    assertEquals("1", get(db, "k"));
    assertThrows(ExecutionException.class, () -> db.closeAsync().toCompletableFuture().get());
  }

  @Test
  void aSegmentThatCannotBeCreatedFailsTheCommitBeforeItIsWritten() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    PipelineSettings base = settings(Map.of());
    PipelineSettings faulty = base.withLog(base.log().withFileSystem(fs));
    if (append.equals("actor")) {
      aSegmentThatCannotBeCreatedStopsAnActorWrittenLog(fs, faulty);
      return;
    }
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, faulty)) {
      fs.failNextCreate(); // the log's first segment
      ExecutionException failed = assertThrows(ExecutionException.class, () -> await(write(db, "orders", "k", "1")));
      assertInstanceOf(LogIOException.class, failed.getCause());
      assertNull(get(db, "k"), "nothing is written when the record could not be");
      await(write(db, "orders", "k", "2"));
    }
    try (CommitlaneDatabase reopened = open(dir)) {
      assertEquals("2", get(reopened, "k"));
    }
  }

  /**
   * With {@code txlog.append = actor} the segment is created by the log's writer, after the
   * commit's RocksDB write: the commit fails as not durable and the log stops (records of other
   * commits were claimed in that segment); close says so, and a reopen recovers.
   */
  private void aSegmentThatCannotBeCreatedStopsAnActorWrittenLog(FaultInjectingFileSystem fs, PipelineSettings faulty)
      throws Exception {
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, faulty);
    fs.failNextCreate(); // the log's first segment
    ExecutionException failed = assertThrows(ExecutionException.class, () -> await(write(db, "orders", "k", "1")));
    assertInstanceOf(NotDurableException.class, failed.getCause());
    assertInstanceOf(LogIOException.class, failed.getCause().getCause());
    assertEquals("1", get(db, "k"), "written to RocksDB, but not acknowledged");
    ExecutionException later = assertThrows(ExecutionException.class, () -> await(write(db, "orders", "k", "2")));
    assertInstanceOf(LogIOException.class, later.getCause(), "a stopped log refuses the append, before the write");
    assertEquals("1", get(db, "k"));
    ExecutionException close = assertThrows(ExecutionException.class, () -> db.closeAsync().toCompletableFuture().get());
    assertInstanceOf(TransactionLogException.class, close.getCause());
    try (CommitlaneDatabase reopened = open(dir)) {
      await(write(reopened, "orders", "k", "3"));
      assertEquals("3", get(reopened, "k"));
    }
  }

  /**
   * A commit fails in its RocksDB write after its record reached the log file, and the abort
   * marker cannot be written either (the disk filled up between the two). The record must stay
   * dead: the client is told nothing was written, the log's watermark does not stall on it, and
   * no reopen applies it over a later commit.
   */
  @Test
  void aFailedCommitWhoseAbortMarkerCannotBeWrittenNeverComesBack() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, withFileSystem(fs));
    await(write(db, "orders", "k", "before"));
    failWriteAfterItsRecordReachedTheFile(db, fs, "doomed");
    ExecutionException failed = assertThrows(ExecutionException.class, () -> await(tagged(db, "doomed", "k")));
    assertEquals("injected write failure", failed.getCause().getMessage(), "nothing was written, and it is known");
    assertEquals("before", get(db, "k"));
    await(write(db, "other", "k", "after")); // a later commit to the same key, in another log
    if (append.equals("serialized")) {
      // The log stays usable and its watermark moves past the dead record; readers skip it.
      await(write(db, "orders", "j", "later"));
      try (LogReader reader = db.transactionLog("orders").reader(ReadRequest.fromStart())) {
        List<String> seen = new ArrayList<>();
        for (LogRecord r = reader.next(); r != null; r = reader.next()) {
          seen.add(text(r.entries().get(0).duplicate()));
        }
        assertEquals(List.of("k=before", "j=later"), seen);
      }
      db.close();
    } else {
      // The log could not write the marker: it stops until reopened, but the record stays dead.
      assertThrows(ExecutionException.class, () -> await(write(db, "orders", "j", "later")));
      assertThrows(ExecutionException.class, () -> db.closeAsync().toCompletableFuture().get());
    }
    for (int round = 0; round < 2; round++) {
      try (CommitlaneDatabase reopened = open(dir)) {
        assertEquals("after", get(reopened, "k"), "round " + round + ": the failed commit never comes back");
      }
    }
  }

  /**
   * As above, and the record's replay marker cannot be written either: nothing can tell a later
   * open that the record is dead, so the client is told the outcome is unknown and the database
   * refuses every later commit until it is reopened; after the reopen nothing went back in time.
   */
  @Test
  void aFailedCommitThatCannotBeMadeDeadStopsTheDatabaseUntilReopened() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Faults faults = new Faults();
    CommitlaneDatabase db = CommitlaneDatabase.open(testKit.system(), dir, withFileSystem(fs), faults);
    await(write(db, "orders", "k", "before"));
    failWriteAfterItsRecordReachedTheFile(db, fs, "doomed");
    faults.failDeadMarkers();
    ExecutionException failed = assertThrows(ExecutionException.class, () -> await(tagged(db, "doomed", "k")));
    assertInstanceOf(CommitOutcomeUnknownException.class, failed.getCause());
    for (String log : new String[] {"other", null}) {
      ExecutionException refused = assertThrows(ExecutionException.class, () -> await(write(db, log, "k", "after")));
      assertInstanceOf(DatabaseStoppedException.class, refused.getCause(), "log " + log);
    }
    assertThrows(DatabaseStoppedException.class, () -> db.storage().put(b("k"), b("plain")));
    assertEquals("before", get(db, "k"));
    try {
      db.closeAsync().toCompletableFuture().get();
    } catch (ExecutionException e) {
      assertInstanceOf(TransactionLogException.class, e.getCause(), "a stopped log says so at close");
    }
    try (CommitlaneDatabase reopened = open(dir)) {
      String k = get(reopened, "k");
      assertTrue(k.equals("before") || k.equals("doomed"), "the unknown outcome is one or the other: " + k);
      await(write(reopened, "orders", "k", "after"));
    }
    try (CommitlaneDatabase reopened = open(dir)) {
      assertEquals("after", get(reopened, "k"));
    }
  }

  /** A logged write of {@code key = tag}, tagged {@code tag} (for stage listeners). */
  private static CompletionStage<CommitResult> tagged(CommitlaneDatabase db, String tag, String key) {
    Transaction t = db.begin().tag(tag).useLog("orders").addLogEntry(b(key + "=" + tag));
    t.put(b(key), b(tag));
    return db.commit(t);
  }

  private static String text(java.nio.ByteBuffer bytes) {
    byte[] out = new byte[bytes.remaining()];
    bytes.get(out);
    return new String(out, java.nio.charset.StandardCharsets.UTF_8);
  }

  private PipelineSettings withFileSystem(FaultInjectingFileSystem fs) {
    PipelineSettings base = settings(Map.of());
    return base.withLog(base.log().withFileSystem(fs));
  }

  /**
   * The commit tagged {@code tag} fails as if its RocksDB write failed, after its record was
   * written to the log's file (a reader of uncommitted records writes it out) and with the next
   * file write (its abort marker) armed to fail.
   */
  private static void failWriteAfterItsRecordReachedTheFile(CommitlaneDatabase db, FaultInjectingFileSystem fs,
      String tag) {
    db.storage().addStageListener((stage, c) -> {
      if (stage == CommitStage.LOG_APPENDED && tag.equals(c.tag())) {
        try (LogReader reader = db.transactionLog("orders").reader(ReadRequest.fromStart().includeUncommitted(true))) {
          while (reader.next() != null) {
            // read to the end: the record is in the file now
          }
        }
        fs.failNextWrite();
        throw new IllegalStateException("injected write failure");
      }
    });
  }

  @Test
  void anOpenThatFailsBetweenRecordingOneLogAndTheNextAsFlushedLeavesTheLatestValue() throws Exception {
    // Which log is recorded first is not part of the contract: try the newer commit in each.
    for (String newer : List.of("alpha", "zeta")) {
      String older = newer.equals("alpha") ? "zeta" : "alpha";
      Path db1 = dir.resolve("db-" + newer);
      Path image = dir.resolve("image-" + newer);
      try (CommitlaneDatabase db = open(db1)) {
        await(write(db, older, "k", "1"));
        await(write(db, newer, "k", "2"));
        crashImage(db1, image);
      }
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      int[] creates = {0};
      fs.beforeCreate(() -> {
        if (++creates[0] == 2) {
          fs.failNextCreate(); // the second log's flushed-position file
        }
      });
      assertThrows(LogIOException.class,
          () -> Commitlane.get(testKit.system()).open(image, withFileSystem(settings(Map.of()), fs)));
      assertEquals(2, creates[0], "the open failed at the second flushed-position file");
      for (int round = 0; round < 2; round++) {
        try (CommitlaneDatabase db = open(image)) {
          assertEquals("2", get(db, "k"), "newer commit in " + newer + ", round " + round);
        }
      }
    }
  }

  @Test
  void aRecordLostWithTheLogsTailNeverHidesTheCommitThatTakesItsPlace() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Path db1 = dir.resolve("db");
    Path image = dir.resolve("image");
    long lost = -1;
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(db1, withFileSystem(settings(Map.of()), fs))) {
      await(write(db, "orders", "k", "a"));
      await(write(db, "orders", "k", "x"));
      lost = lastPosition(db, "orders");
      // RocksDB flushes x and its marker, but the flushed position cannot move past it.
      java.util.concurrent.CountDownLatch attempted = new java.util.concurrent.CountDownLatch(1);
      fs.beforeCreate(() -> {
        fs.failNextCreate(); // every flushed-position file until the image is taken
        attempted.countDown();
      });
      db.storage().flush();
      assertTrue(attempted.await(30, java.util.concurrent.TimeUnit.SECONDS), "the flush event was recorded");
      crashImage(db1, image);
      fs.beforeCreate(null);
    }
    // The halt lost x's log bytes (a torn tail): only RocksDB still holds x.
    Path segment = image.resolve("txlog/orders").resolve(String.format("%020d.txlog", LogPosition.segment(lost)));
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(segment,
        java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(LogPosition.offset(lost));
    }
    Path image2 = dir.resolve("image2");
    try (CommitlaneDatabase db = open(image)) {
      await(write(db, "orders", "k", "x2"));
      crashImage(image, image2);
    }
    try (CommitlaneDatabase db = open(image2)) {
      assertEquals("x2", get(db, "k"), "the acknowledged commit after the lost record");
    }
  }

  @Test
  void aMissingFlushedPositionFileNeverPutsBackAnOlderValue() throws Exception {
    try (CommitlaneDatabase db = open(dir)) {
      await(write(db, "orders", "k", "1"));
      await(write(db, null, "k", "2"));
    }
    Path file = dir.resolve("txlog/orders/flushed-position");
    Files.delete(file);
    assertEquals(LogInspector.CORRUPT, LogInspector.run(new String[] {dir.resolve("txlog/orders").toString()},
        quiet(), quiet()), "inspect does not call the log clean");
    LogDamagedException refused = assertThrows(LogDamagedException.class, () -> Commitlane.get(testKit.system()).open(dir, settings(Map.of("txlog.recovery", "absolute-consistency"))));
    assertTrue(refused.getMessage().contains(file.getFileName().toString()), refused.getMessage());
    try (CommitlaneDatabase db = open(dir)) {
      assertEquals("2", get(db, "k"));
      ReplayStats stats = db.replayStatsAtOpen().get("orders");
      assertEquals(0, stats.transactions(), stats.toString());
      assertEquals(LogDamage.Kind.FLUSHED_POSITION, stats.damage().get(0).kind());
    }
    try (CommitlaneDatabase db = open(dir)) {
      assertEquals("2", get(db, "k"));
      assertTrue(db.replayStatsAtOpen().get("orders").complete(), "the flushed position is recorded again");
    }
  }

  /**
   * A directory where a log keeps its flushed-position file is the same damage as a lost file:
   * inspect names it, absolute-consistency refuses to open naming it, and the other modes replay
   * exactly what RocksDB misses and write the file again (an empty directory is replaced; one that
   * holds something is left alone and the open says to move it away).
   */
  @Test
  void aDirectoryWhereTheFlushedPositionBelongsIsNamedAsFlushedPositionDamage() throws Exception {
    try (CommitlaneDatabase db = open(dir)) {
      await(write(db, "orders", "k", "1"));
      await(write(db, null, "k", "2"));
    }
    Path file = dir.resolve("txlog/orders/flushed-position");
    Files.delete(file);
    Files.createDirectory(file);
    Files.writeString(file.resolve("notes.txt"), "not commitlane's");
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    assertEquals(LogInspector.CORRUPT, LogInspector.run(new String[] {dir.toString()}, new java.io.PrintStream(out, true),
        quiet()), "damage, not \"not a log\"");
    String report = out.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(report.contains("flushed-position is not a regular file"), report);
    LogDamagedException refused = assertThrows(LogDamagedException.class, () -> Commitlane.get(testKit.system()).open(dir, settings(Map.of("txlog.recovery", "absolute-consistency"))));
    assertTrue(refused.getMessage().contains("flushed-position is not a regular file"), refused.getMessage());
    Exception kept = assertThrows(Exception.class, () -> open(dir), "what it holds is not commitlane's to delete");
    assertTrue(String.valueOf(kept.getMessage()).contains(file + " is a directory") && kept.getMessage().contains("move it away"),
        kept.getMessage());
    assertEquals("not commitlane's", Files.readString(file.resolve("notes.txt")));
    Files.delete(file.resolve("notes.txt")); // an empty directory holds nothing: it is replaced
    try (CommitlaneDatabase db = open(dir)) {
      assertEquals("2", get(db, "k"), "nothing older put back");
      ReplayStats stats = db.replayStatsAtOpen().get("orders");
      assertEquals(0, stats.transactions(), stats.toString());
      assertEquals(LogDamage.Kind.FLUSHED_POSITION, stats.damage().get(0).kind());
    }
    assertTrue(Files.isRegularFile(file), "written again");
    try (CommitlaneDatabase db = open(dir)) {
      assertEquals("2", get(db, "k"));
      assertTrue(db.replayStatsAtOpen().get("orders").complete(), db.replayStatsAtOpen().toString());
    }
  }

  @Test
  void inspectingAHealthyDatabaseDirectoryReadsEveryLogUnderItAndCallsItClean() throws Exception {
    try (CommitlaneDatabase db = open(dir)) {
      await(write(db, "orders", "k", "1"));
      await(write(db, "payments", "j", "1"));
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    int exit = LogInspector.run(new String[] {dir.toString()}, new java.io.PrintStream(out, true), quiet());
    String text = out.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(LogInspector.CLEAN, exit, text);
    assertTrue(text.contains("log " + dir.resolve("txlog/orders")) && text.contains("log " + dir.resolve("txlog/payments")),
        text);
    assertFalse(text.contains("FOREIGN"), "RocksDB's own files are not the logs' business: " + text);
  }

  @Test
  void aLogWhoseDirectoryIsGoneStartsAgainWithoutItsOldMarkers() throws Exception {
    Path db1 = dir.resolve("db");
    Path image = dir.resolve("image");
    try (CommitlaneDatabase db = open(db1)) {
      for (int i = 0; i < 3; i++) {
        await(write(db, "orders", "k", "old" + i));
      }
    }
    try (Stream<Path> files = Files.walk(db1.resolve("txlog/orders"))) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    try (CommitlaneDatabase db = open(db1)) {
      await(write(db, "orders", "k", "new"));
      crashImage(db1, image);
    }
    try (CommitlaneDatabase db = open(image)) {
      assertEquals("new", get(db, "k"), "the new log's first record is not taken for the old log's");
    }
  }

  private static long lastPosition(CommitlaneDatabase db, String log) {
    long last = -1;
    try (LogReader reader = db.transactionLog(log).reader(ReadRequest.fromStart())) {
      for (LogRecord r = reader.next(); r != null; r = reader.next()) {
        last = r.position();
      }
    }
    return last;
  }

  private static PipelineSettings withFileSystem(PipelineSettings base, FaultInjectingFileSystem fs) {
    return base.withLog(base.log().withFileSystem(fs));
  }

  /** Copies a running database's files: what a kill -9 at this moment would leave on disk. */
  static void crashImage(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.sorted(Comparator.naturalOrder()).toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else if (!p.getFileName().toString().equals("LOCK")) {
          try {
            Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
          } catch (java.nio.file.NoSuchFileException gone) {
            // deleted or renamed since the walk listed it (a flushed-position temp file): the kill came after that
          }
        }
      }
    }
  }

  private static java.io.PrintStream quiet() {
    return new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
  }
}
