package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every commitlane Flight Recorder event, read back from a real recording of a database's life:
 * logged commits under fsync durability, a conflict, a store drop, a crash image reopened (replay),
 * and the executors stopping with the actor system.
 */
class FlightRecorderEventsTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "txlog.append = {0}")
  @ValueSource(strings = {"serialized", "leaderless", "actor"})
  void aRecordingHoldsEveryEventWithItsDatabaseTransactionAndOutcome(String append) throws Exception {
    // Names unique to this run: JDK 17's recorder may lose a pooled string a previous recording in
    // the same JVM already wrote (the executor threads are named after the database directory).
    Path live = dir.resolve("db-" + append);
    Path image = dir.resolve("image-" + append);
    Map<String, Object> settings = Map.of("commit-threads", 1, "wal", "off", "txlog.append", append,
        "txlog.durability", "fsync");
    long logged;
    long loser;
    List<RecordedEvent> events;
    try (Recording recording = CommitlaneEvents.enableAll(new Recording())) {
      recording.start();
      ActorTestKit testKit = ActorTestKit.create();
      try {
        try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(live,
            PipelineTestSupport.settings(testKit.system(), settings))) {
          Transaction t = db.begin().useLog("orders").addLogEntry(b("order 1"));
          t.put(b("k"), b("1"));
          await(db.commit(t));
          logged = t.id();

          Transaction stale = db.begin();
          stale.get(b("k"));
          Transaction other = db.begin().put(b("k"), b("2"));
          await(db.commit(other));
          stale.put(b("k"), b("3"));
          loser = stale.id();
          ExecutionException e = assertThrows(ExecutionException.class, () -> await(db.commit(stale)));
          assertInstanceOf(ConflictException.class, e.getCause());

          await(db.createStore("s"));
          await(db.dropStore("s"));
          RecoveryRegressionTest.crashImage(live, image); // the logged commit is only in the log (WAL off)
        }
        try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(image,
            PipelineTestSupport.settings(testKit.system(), settings))) {
          assertEquals(1, db.replayStatsAtOpen().get("orders").transactions());
        }
      } finally {
        testKit.shutdownTestKit(); // waits for the executors to stop
      }
      recording.stop();
      Path file = dir.resolve("recording.jfr");
      recording.dump(file);
      events = RecordingFile.readAllEvents(file);
    }

    Map<String, List<RecordedEvent>> byName = events.stream()
        .filter(e -> e.getEventType().getName().startsWith("io.commitlane."))
        .collect(Collectors.groupingBy(e -> e.getEventType().getName()));
    for (String name : CommitlaneEvents.all()) {
      if (name.equals("io.commitlane.HealthChanged")) {
        continue; // it takes a failing disk: storage's BackgroundErrorsTest records it
      }
      if (name.startsWith("io.commitlane.Projection")) {
        continue; // it takes a projection: projection.ProjectionEventsTest records them
      }
      assertTrue(byName.containsKey(name), name + " is recorded; got " + byName.keySet());
      for (RecordedEvent e : byName.get(name)) {
        assertFalse(e.getDuration().isNegative(), name);
        for (var field : e.getFields()) {
          if ("jdk.jfr.Timespan".equals(field.getContentType())) {
            assertFalse(e.getDuration(field.getName()).isNegative(), name + "." + field.getName());
          }
        }
      }
    }
    String db = live.toString();

    Map<Long, RecordedEvent> acknowledged = forTransactions(byName, "io.commitlane.CommitAcknowledged", db);
    assertEquals("COMMITTED", acknowledged.get(logged).getString("outcome"));
    assertEquals("CONFLICTED", acknowledged.get(loser).getString("outcome"));
    assertTrue(acknowledged.get(logged).getDuration("execution").compareTo(Duration.ZERO) >= 0);
    assertTrue(forTransactions(byName, "io.commitlane.CommitAdmitted", db).get(logged).getInt("queueDepth") >= 1);
    assertEquals(1, forTransactions(byName, "io.commitlane.CommitDequeued", db).get(logged).getInt("groupSize"));

    Map<Long, RecordedEvent> validated = forTransactions(byName, "io.commitlane.CommitValidated", db);
    assertEquals("VALIDATED", validated.get(logged).getString("outcome"));
    assertEquals("CONFLICTED", validated.get(loser).getString("outcome"));
    assertFalse(forTransactions(byName, "io.commitlane.CommitWritten", db).containsKey(loser), "a conflict is not written");
    assertEquals("WRITTEN", forTransactions(byName, "io.commitlane.CommitWritten", db).get(logged).getString("outcome"));

    RecordedEvent appended = forTransactions(byName, "io.commitlane.LogAppended", db).get(logged);
    assertEquals("orders", appended.getString("log"));
    assertEquals(1, appended.getInt("entries"));

    assertTrue(byName.get("io.commitlane.LogSynced").stream().anyMatch(e -> "orders".equals(e.getString("log"))
        && e.getString("segment").startsWith(db) && "SYNCED".equals(e.getString("outcome"))),
        "the orders log was forced");

    RecordedEvent replayed = byName.get("io.commitlane.LogReplayed").stream()
        .filter(e -> e.getString("database").equals(image.toString())).findFirst().orElseThrow();
    assertEquals("orders", replayed.getString("log"));
    assertEquals(1, replayed.getLong("transactions"));

    RecordedEvent dropped = byName.get("io.commitlane.StoreDropped").get(0);
    assertEquals(List.of(db, "s", "DROPPED"),
        List.of(dropped.getString("database"), dropped.getString("store"), dropped.getString("outcome")));

    for (String name : List.of("io.commitlane.ExecutorStarted", "io.commitlane.ExecutorStopped")) {
      Map<String, Long> perDatabase = byName.get(name).stream()
          .collect(Collectors.groupingBy(e -> e.getString("database"), HashMap::new, Collectors.counting()));
      assertEquals(Map.of(db, 1L, image.toString(), 1L), perDatabase, name + ": one executor per database");
      byName.get(name).forEach(e -> assertTrue(e.getString("executor").startsWith("commitlane-commit-"), e.toString()));
    }
  }

  /** The events of {@code name} for database {@code db}, by transaction id. */
  private static Map<Long, RecordedEvent> forTransactions(Map<String, List<RecordedEvent>> byName, String name, String db) {
    return byName.get(name).stream().filter(e -> db.equals(e.getString("database")))
        .collect(Collectors.toMap(e -> e.getLong("transactionId"), e -> e));
  }
}
