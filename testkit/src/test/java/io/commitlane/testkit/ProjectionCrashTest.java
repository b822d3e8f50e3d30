package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.projection.ProjectionBatch;
import io.commitlane.actors.projection.ProjectionControl;
import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.storage.Store;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * kill -9 of a process whose projection counts the orders of a log while orders keep coming:
 * once at a random moment, once with a projection commit written to RocksDB but not yet
 * acknowledged. After both kills the projection, run again to the log's end, holds for every key
 * exactly the number of records of that key in the log: no record was applied twice, none was
 * missed. Every append mode, the RocksDB WAL on and off.
 */
class ProjectionCrashTest {
  private static ActorSystem<Void> system;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    system = ActorSystem.create(Behaviors.empty(), "projection-crash-check");
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  @ParameterizedTest(name = "wal {0}, {1} appends")
  @CsvSource({"off, serialized", "off, leaderless", "off, actor", "on, serialized", "on, leaderless", "on, actor"})
  void countsAreExactAfterKillsAtAnyMomentAndInTheMiddleOfABatch(String wal, String append) throws Exception {
    Random random = new Random(append.hashCode() * 31L + wal.hashCode());
    int acks = 200 + random.nextInt(400);
    CrashRun atRandom = CrashHarness.of(ProjectionWorkload.class, dir)
        .args("wal=" + wal, "append=" + append, "run=1").killAfterAcks(acks).run();
    assertTrue(atRandom.killed(), atRandom.stderr());
    String hold = "WRITTEN:5";
    CrashRun midBatch = CrashHarness.of(ProjectionWorkload.class, dir)
        .args("wal=" + wal, "append=" + append, "run=2", "hold=" + hold).killAt(ProjectionWorkload.marker(hold)).run();
    assertTrue(midBatch.killed(), midBatch.stderr());
    assertEquals(List.of(ProjectionWorkload.marker(hold)), midBatch.markers());

    try (CommitlaneDatabase db = Commitlane.get(system).open(dir, ProjectionWorkload.settings(system, wal, append))) {
      List<LogRecord> records = ChangeFeed.current(db, ProjectionWorkload.LOG, ReadRequest.fromStart())
          .runWith(Sink.seq(), system).toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertTrue(records.size() >= atRandom.acknowledged().size() + midBatch.acknowledged().size(),
          "every acknowledged order is in the log: " + records.size());
      long last = records.get(records.size() - 1).position();
      Pair<ProjectionControl, java.util.concurrent.CompletionStage<List<ProjectionBatch<LogRecord>>>> finish =
          ProjectionWorkload.projection(db).source().takeWhile(b -> b.position() != last, true)
              .toMat(Sink.seq(), Keep.both()).run(system);
      finish.second().toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertEquals(Done.getInstance(), finish.first().whenStopped().toCompletableFuture().get(30, TimeUnit.SECONDS));
      assertEquals(last, finish.first().status().position());

      Map<String, Long> expected = new TreeMap<>();
      for (LogRecord r : records) {
        expected.merge(new String(ProjectionWorkload.key(r), StandardCharsets.UTF_8), 1L, Long::sum);
      }
      Store model = db.storage().store("model");
      Map<String, Long> counted = new TreeMap<>();
      for (String key : expected.keySet()) {
        byte[] v = db.storage().get(model, key.getBytes(StandardCharsets.UTF_8));
        counted.put(key, v == null ? 0 : Long.parseLong(new String(v, StandardCharsets.UTF_8)));
      }
      assertEquals(expected, counted, "every order counted exactly once (wal " + wal + ", " + append + " appends, "
          + records.size() + " orders)");
    }
  }
}
