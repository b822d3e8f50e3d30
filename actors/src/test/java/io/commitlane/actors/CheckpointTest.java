package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.log.TransactionLogs;
import io.commitlane.storage.CapturedLog;
import io.commitlane.storage.CheckpointException;
import io.commitlane.storage.CheckpointInfo;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Database;
import io.commitlane.storage.LogCapture;
import io.commitlane.storage.PathInUseException;
import io.commitlane.storage.ReadOnlyDatabaseException;
import io.commitlane.storage.Transaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A checkpoint opens as a prefix of commit order holding every commit acknowledged before it, in
 * every append mode with the WAL on and off: its logs run ahead of its data, never behind, and
 * their flushed positions claim nothing the copied data lacks.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
@ParameterizedClass(name = "txlog.append = {0}, wal = {1}")
@CsvSource({"serialized, off", "serialized, on", "leaderless, off", "actor, off"})
class CheckpointTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @Parameter(0) String append;
  @Parameter(1) String wal;

  @TempDir Path dir;

  private PipelineSettings settings() {
    Map<String, Object> m = new HashMap<>();
    m.put("commit-threads", 1);
    m.put("wal", wal);
    m.put("txlog.append", append);
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane")
        .withFallback(testKit.system().settings().config()));
  }

  private CommitlaneDatabase open(Path path) {
    return Commitlane.get(testKit.system()).open(path, settings());
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

  private static Map<String, String> contents(CommitlaneDatabase db, Map<String, String> model) {
    Map<String, String> out = new TreeMap<>();
    for (String k : model.keySet()) {
      out.put(k, s(db.storage().get(b(k))));
    }
    return out;
  }

  @Test
  void aCheckpointOpensAtTheStateItWasTakenAtAcrossLogsFlushesAndUnloggedCommits() throws Exception {
    Map<String, String> model = new TreeMap<>();
    Path copy = dir.resolve("copy");
    try (CommitlaneDatabase db = open(dir.resolve("db"))) {
      for (int i = 0; i < 40; i++) {
        String log = i % 3 == 0 ? "alpha" : i % 3 == 1 ? "beta" : null;
        String key = "k" + (i % 11);
        String value = i % 7 == 6 ? null : "v" + i;
        await(write(db, log, key, value));
        model.put(key, value);
        if (i == 15) {
          db.storage().flush(); // moves the flushed positions and deletes markers below them
        }
      }
      CheckpointInfo info = await(db.checkpoint(copy));
      assertEquals(copy.toAbsolutePath().normalize(), info.path());
      assertEquals(List.of("alpha", "beta"), info.logs().stream().map(CapturedLog::name).toList());
      for (int i = 0; i < 11; i++) {
        await(write(db, "alpha", "k" + i, "after")); // never in the copy
      }
    }
    try (CommitlaneDatabase restored = open(copy)) {
      assertEquals(model, contents(restored, model));
      await(write(restored, "alpha", "new", "x")); // the copy is a database of its own
    }
  }

  @Test
  void aFlushWhileTheLogsAreHeldDoesNotMoveTheFlushedPositionTheCopyCarries() throws Exception {
    try (CommitlaneDatabase db = open(dir.resolve("db"))) {
      TransactionLogs logs = db.pipeline().logs();
      await(write(db, "alpha", "a", "1"));
      db.storage().flush();
      logs.onFlushCompleted(db.storage().latestSequenceNumber()); // what the flush event does, here and now
      long before = db.internalTransactionLog("alpha").flushedPosition();
      assertTrue(before > 0);
      LogCapture capture = logs;
      List<CapturedLog> copied;
      try (LogCapture.Hold hold = capture.hold()) {
        await(write(db, "alpha", "b", "2"));
        db.storage().flush();
        logs.onFlushCompleted(db.storage().latestSequenceNumber());
        assertEquals(before, db.internalTransactionLog("alpha").flushedPosition(), "held");
        copied = hold.copyTo(dir.resolve("logs"), null);
      }
      assertEquals(before, copied.get(0).flushedPosition());
      assertTrue(copied.get(0).endPosition() > before);
      assertTrue(db.internalTransactionLog("alpha").flushedPosition() > before, "the deferred flush applies at release");
    }
  }

  @Test
  void aCheckpointIntoAnExistingDirectoryOrInsideTheDatabaseIsRefusedAndLeavesNothing() throws Exception {
    Path target = Files.createDirectories(dir.resolve("taken"));
    try (CommitlaneDatabase db = open(dir.resolve("db"))) {
      await(write(db, "alpha", "a", "1"));
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> db.checkpoint(target).toCompletableFuture().get());
      assertInstanceOf(CheckpointException.class, e.getCause());
      assertTrue(e.getCause().getMessage().contains("already exists"), e.getCause().getMessage());
      e = assertThrows(ExecutionException.class,
          () -> db.checkpoint(dir.resolve("db").resolve("inside")).toCompletableFuture().get());
      assertInstanceOf(CheckpointException.class, e.getCause());
      assertFalse(Files.exists(dir.resolve("db").resolve("inside")));
      await(write(db, "alpha", "b", "2")); // still writable
    }
  }

  @Test
  void aReadOnlyOpenReadsBesideNothingAndRefusesWrites() throws Exception {
    Path path = dir.resolve("db");
    try (CommitlaneDatabase db = open(path)) {
      await(write(db, "alpha", "a", "1"));
      assertThrows(PathInUseException.class, () -> Database.openReadOnly(path));
    }
    try (Database ro = Database.openReadOnly(path)) {
      assertTrue(ro.isReadOnly());
      assertEquals("1", s(ro.get(b("a"))));
      assertThrows(ReadOnlyDatabaseException.class, () -> ro.put(b("a"), b("2")));
      Transaction t = ro.begin();
      t.put(b("a"), b("3"));
      ReadOnlyDatabaseException e = assertThrows(ReadOnlyDatabaseException.class, t::commitSync);
      assertTrue(e.getMessage().contains("read-only"), e.getMessage());
      assertThrows(ReadOnlyDatabaseException.class, ro::flush);
      assertThrows(ReadOnlyDatabaseException.class, () -> ro.store("new"));
      assertThrows(ReadOnlyDatabaseException.class, () -> ro.compact(io.commitlane.storage.KeyRange.all(), true));
      assertThrows(ReadOnlyDatabaseException.class, () -> ro.checkpoint(dir.resolve("copy")), "a read-only handle cannot flush");
      assertFalse(Files.exists(dir.resolve("copy")));
    }
    try (CommitlaneDatabase db = open(path)) {
      assertEquals("1", s(db.storage().get(b("a"))), "the read-only open changed nothing");
    }
  }
}
