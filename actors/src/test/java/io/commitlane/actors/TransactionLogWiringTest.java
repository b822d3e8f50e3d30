package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.LogView;
import io.commitlane.txlog.ReadRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
@ParameterizedClass(name = "txlog.append = {0}")
@ValueSource(strings = {"serialized", "leaderless", "actor"})
class TransactionLogWiringTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @Parameter String append;

  @TempDir
  Path dir;

  private CommitlaneDatabase open(Map<String, Object> more) {
    Map<String, Object> m = new HashMap<>(more);
    m.putIfAbsent("commit-threads", 2);
    m.put("wal", "off");
    m.put("txlog.append", append);
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  private static CompletionStage<CommitResult> logged(CommitlaneDatabase db, String tag, String key, String entry) {
    Transaction t = db.begin().tag(tag).useLog("changes");
    t.put(b(key), b(entry));
    t.addLogEntry(b(entry));
    return db.commit(t);
  }

  private static String entry(LogRecord r) {
    ByteBuffer e = r.entries().get(0);
    byte[] bytes = new byte[e.remaining()];
    e.duplicate().get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static int count(LogView log) {
    int n = 0;
    try (LogReader reader = log.reader(ReadRequest.fromStart())) {
      while (reader.next() != null) {
        n++;
      }
    }
    return n;
  }

  @Test
  void aLoggedCommitHasOneRecordWithItsEntriesPositionAndTimestamp() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      CommitResult firstResult = await(logged(db, "a", "k1", "one"));
      LogAppend first = LogAppend.of(firstResult).orElseThrow();
      LogAppend second = LogAppend.of(await(logged(db, "b", "k2", "two"))).orElseThrow();
      assertEquals(first, LogAppend.of(firstResult).orElseThrow(), "two reads of one result are equal");
      assertNotEquals(first, second);
      assertEquals("changes", first.log());
      assertTrue(second.position() > first.position());
      assertTrue(second.timestamp() > first.timestamp());
      try (LogReader reader = db.transactionLog("changes").reader(ReadRequest.fromStart())) {
        LogRecord r1 = reader.next();
        LogRecord r2 = reader.next();
        assertEquals(List.of("one", "two"), List.of(entry(r1), entry(r2)));
        assertEquals(first.position(), r1.position());
        assertEquals(first.timestamp(), r1.timestamp());
        assertNull(reader.next());
      }
      PipelineStats stats = db.stats();
      assertEquals(2, stats.logs().get("changes").recordsWritten());
      assertEquals(0, stats.logs().get("changes").uncommittedCount());
      Transaction plain = db.begin();
      plain.put(b("k3"), b("x"));
      assertTrue(LogAppend.of(await(db.commit(plain))).isEmpty(), "a commit without useLog logs nothing");
    }
  }

  @Test
  void readersNeverSeeARecordBeforeItsDataIsReadable() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      LogView log = db.createTransactionLog("changes"); // read before the first commit creates it
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(CommitStage.LOG_APPENDED, c -> "held".equals(c.tag()));
        CompletionStage<CommitResult> held = logged(db, "held", "k", "v");
        hold.awaitArrivals(1, Duration.ofSeconds(30)); // appended, not written
        try (LogReader reader = log.reader(ReadRequest.fromStart())) {
          assertNull(reader.next(), "the record is appended but its data is not written yet");
        }
        assertNull(db.storage().get(b("k")));
        hold.release();
        await(held);
      }
      try (LogReader reader = log.reader(ReadRequest.fromStart())) {
        assertEquals("v", entry(reader.next()));
      }
    }
  }

  @Test
  void aCommitThatFailsAfterItsAppendIsAbortedInTheLog() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.LOG_APPENDED && "doomed".equals(c.tag())) {
          throw new IllegalStateException("injected write failure");
        }
      });
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(logged(db, "doomed", "k", "lost")));
      assertEquals("injected write failure", e.getCause().getMessage());
      await(logged(db, "fine", "k2", "kept"));
      try (LogReader reader = db.transactionLog("changes").reader(ReadRequest.fromStart())) {
        assertEquals("kept", entry(reader.next()), "the aborted record is invisible");
        assertNull(reader.next());
      }
      assertEquals(1, count(db.transactionLog("changes")), "only the kept record is readable");
    }
  }

  @Test
  void fsyncDurabilityAcknowledgesAfterTheSync() throws Exception {
    try (CommitlaneDatabase db = open(Map.of("txlog.durability", "fsync"))) {
      CommitResult r = await(logged(db, "a", "k", "v"));
      LogView log = db.transactionLog("changes");
      assertTrue(log.stats().durablePosition() > LogAppend.of(r).orElseThrow().position());
      assertTrue(log.stats().fsyncs() >= 1);
      Transaction t = db.begin().useLog("changes");
      t.put(b("s"), b("1"));
      CommitResult sync = db.commitSync(t);
      assertTrue(log.stats().durablePosition() > LogAppend.of(sync).orElseThrow().position());
    }
  }

  @Test
  void aRocksDbFlushMovesTheFlushedPositionPastFlushedRecords() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      LogAppend a = LogAppend.of(await(logged(db, "a", "k", "v"))).orElseThrow();
      LogView log = db.transactionLog("changes");
      assertTrue(log.flushedPosition() <= a.position());
      db.storage().flush();
      // The flush event travels to the transaction-log actor asynchronously.
      testKit.createTestProbe().awaitAssert(Duration.ofSeconds(10), () -> {
        assertTrue(log.flushedPosition() > a.position(), "flushed " + log.flushedPosition());
        return null;
      });
    }
  }

  @Test
  void twoFacadesOfOnePathShareOneLog() throws Exception {
    CommitlaneDatabase one = open(Map.of());
    try (CommitlaneDatabase two = open(Map.of())) {
      await(logged(one, "a", "k1", "from-one"));
      await(logged(two, "b", "k2", "from-two"));
      one.close();
      await(logged(two, "c", "k3", "after-close"));
      assertEquals(3, count(two.transactionLog("changes")), "every record appended exactly once");
    }
    assertFalse(io.commitlane.storage.Database.isOpen(dir));
    try (CommitlaneDatabase again = open(Map.of())) {
      assertEquals("from-two", s(again.storage().get(b("k2"))));
    }
  }

  @Test
  void badLogSettingsNameTheirField() {
    io.commitlane.storage.InvalidSettingsException e = assertThrows(io.commitlane.storage.InvalidSettingsException.class,
        () -> settings(testKit.system(), Map.of("txlog.durability", "sometimes", "txlog.max-segment-size", "1 KiB")));
    assertTrue(e.fields().contains("commitlane.txlog.durability"), e.getMessage());
    assertTrue(e.fields().contains("commitlane.txlog.max-segment-size"), e.getMessage());
  }
}
