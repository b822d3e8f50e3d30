package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.storage.CommitOutcomeUnknownException;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A commit that failed after its log record reached the file, and whose abort marker could not be
 * written, never comes back to the log's readers: not in this opening, not after a reopen (from
 * the start or resumed after the last record a consumer handled), not to a reader of the log
 * opened directly after that. When it cannot even be made dead, readers and replay still agree
 * after the reopen: the feed holds the record exactly when the database holds the commit.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
@ParameterizedClass(name = "txlog.append = {0}, wal = {1}")
@CsvSource({"serialized, off", "serialized, on", "leaderless, off", "leaderless, on", "actor, off", "actor, on"})
class FailedCommitFeedTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @Parameter(0) String append;
  @Parameter(1) String wal;

  @TempDir Path dir;

  private PipelineSettings settings(FaultInjectingFileSystem fs) {
    Map<String, Object> m = new HashMap<>();
    m.put("commit-threads", 1);
    m.put("wal", wal);
    m.put("txlog.append", append);
    PipelineSettings base = PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane")
        .withFallback(testKit.system().settings().config()));
    return fs == null ? base : base.withLog(base.log().withFileSystem(fs));
  }

  @Test
  void aFailedCommitWhoseAbortMarkerCannotBeWrittenNeverComesBackInTheFeed() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, settings(fs));
    long handled = LogAppend.of(await(write(db, "k", "before"))).orElseThrow().position();
    failWriteAfterItsRecordReachedTheFile(db, fs, "doomed");
    assertThrows(ExecutionException.class, () -> await(write(db, "k", "doomed")));
    List<String> expected = new ArrayList<>(List.of("k=before"));
    if (append.equals("serialized")) {
      await(write(db, "j", "later")); // the log stays usable: a later record follows the dead one
      expected.add("j=later");
      assertEquals(expected, feed(db, ReadRequest.fromStart()), "hidden in this opening");
      db.close();
    } else {
      assertThrows(ExecutionException.class, () -> db.closeAsync().toCompletableFuture().get());
    }
    for (int round = 0; round < 2; round++) {
      try (CommitlaneDatabase reopened = Commitlane.get(testKit.system()).open(dir, settings(null))) {
        assertEquals("before", s(reopened.storage().get(b("k"))));
        assertEquals(expected, feed(reopened, ReadRequest.fromStart()), "round " + round + ", from the start");
        assertEquals(expected.subList(1, expected.size()), feed(reopened, ReadRequest.fromPosition(handled).exclusive()),
            "round " + round + ", resumed after the last record handled");
        assertEquals(expected, read(reopened.transactionLog("orders")), "round " + round + ", a reader of the log");
      }
    }
    try (TransactionLog log = TransactionLog.open(dir.resolve("txlog/orders"), settings(null).log()
        .withName("orders"))) {
      assertEquals(expected, read(log), "the log itself says the record is dead once the database was reopened");
    }
  }

  /**
   * The record cannot be made dead (its dead marker is not written, or written and not flushed):
   * its outcome is unknown until the reopen, and after it the feed holds the record exactly when
   * the database holds the commit, after a clean close or a crash. (With no marker written a crash
   * decides as a clean close does: the record is applied.)
   */
  @ParameterizedTest(name = "marker written = {0}, crash = {1}")
  @CsvSource({"false, false", "true, false", "true, true"})
  void whenTheRecordCannotBeMadeDeadTheFeedAgreesWithTheDatabaseAfterTheReopen(boolean markerWritten, boolean crash)
      throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Faults faults = new Faults();
    Path db1 = dir.resolve("db");
    Path image = dir.resolve("image");
    CommitlaneDatabase db = CommitlaneDatabase.open(testKit.system(), db1, settings(fs), faults);
    await(write(db, "k", "before"));
    failWriteAfterItsRecordReachedTheFile(db, fs, "doomed");
    if (markerWritten) {
      faults.failDeadMarkerFlushes();
    } else {
      faults.failDeadMarkers();
    }
    ExecutionException failed = assertThrows(ExecutionException.class, () -> await(write(db, "k", "doomed")));
    assertInstanceOf(CommitOutcomeUnknownException.class, failed.getCause());
    if (crash) {
      RecoveryRegressionTest.crashImage(db1, image);
    }
    faults.reset(); // a clean close flushes what it can
    try {
      db.closeAsync().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      // a stopped log says so at close
    }
    for (int round = 0; round < 2; round++) {
      try (CommitlaneDatabase reopened = Commitlane.get(testKit.system()).open(crash ? image : db1, settings(null))) {
        String k = s(reopened.storage().get(b("k")));
        assertTrue(k.equals("before") || k.equals("doomed"), k);
        List<String> expected = k.equals("doomed") ? List.of("k=before", "k=doomed") : List.of("k=before");
        assertEquals(expected, feed(reopened, ReadRequest.fromStart()), "round " + round + ": the feed agrees with the data");
        assertEquals(expected, read(reopened.transactionLog("orders")), "round " + round + ": a reader of the log");
      }
    }
  }

  private static CompletionStage<CommitResult> write(CommitlaneDatabase db, String key, String value) {
    Transaction t = db.begin().tag(value).useLog("orders").addLogEntry(b(key + "=" + value));
    t.put(b(key), b(value));
    return db.commit(t);
  }

  private static List<String> feed(CommitlaneDatabase db, ReadRequest from) throws Exception {
    return ChangeFeed.current(db, "orders", from).map(FailedCommitFeedTest::entry)
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static List<String> read(io.commitlane.txlog.LogView log) {
    List<String> out = new ArrayList<>();
    try (LogReader reader = log.reader(ReadRequest.fromStart())) {
      for (LogRecord r = reader.next(); r != null; r = reader.next()) {
        out.add(entry(r));
      }
    }
    return out;
  }

  private static String entry(LogRecord r) {
    ByteBuffer e = r.entries().get(0).duplicate();
    return StandardCharsets.UTF_8.decode(e).toString();
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
}
