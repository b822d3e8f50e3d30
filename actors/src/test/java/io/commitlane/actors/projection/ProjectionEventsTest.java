package io.commitlane.actors.projection;

import static io.commitlane.actors.projection.Orders.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.ClassTestKit;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.CommitlaneEvents;
import io.commitlane.actors.stream.Backoff;
import io.commitlane.storage.CommitStage;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recording holds a projection's batches (committed and conflicted, with their positions and
 * lag) and its failures (restarts and the stop), named in {@link CommitlaneEvents}.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ProjectionEventsTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  @Test
  void aRecordingHoldsEveryBatchAndEveryFailureOfAProjection() throws Exception {
    assertTrue(CommitlaneEvents.all().containsAll(List.of("io.commitlane.ProjectionBatch", "io.commitlane.ProjectionFailed")));
    List<RecordedEvent> events;
    long third;
    try (Recording recording = CommitlaneEvents.enableAll(new Recording());
         CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of());
         StageControl control = StageControl.install(db.storage())) {
      recording.start();
      control.commitExecutors(2, "commitlane-commit-");
      Orders.place(db, 1, 3);
      third = Orders.lastPosition(db, testKit.system());
      // A conflicted batch: A is held while B commits the same records.
      Barrier held = control.barrier(CommitStage.DEQUEUED, "A");
      var a = LocalProjection.of(db, "counts", Orders.LOG, Orders.counting(db, "A")).source()
          .toMat(Sink.queue(), Keep.both()).run(testKit.system());
      held.awaitArrival(Duration.ofSeconds(30));
      var b = LocalProjection.of(db, "counts", Orders.LOG, Orders.counting(db, "B")).source()
          .toMat(Sink.queue(), Keep.both()).run(testKit.system());
      assertEquals(third, await(b.second().pull()).orElseThrow().position());
      await(b.first().stop());
      held.release();
      Orders.place(db, 4, 4);
      await(a.second().pull());
      await(a.first().stop());
      // Failures: a handler that always throws, retried once, then stopped.
      Orders.place(db, 5, 5);
      ProjectionControl failing = LocalProjection.of(db, "counts", Orders.LOG, (txn, records) -> {
        throw new IllegalStateException("bad order");
      }).withSettings(ProjectionSettings.defaults().withOnHandlerFailure(HandlerFailure.RETRY)
          .withRestartBackoff(Backoff.of(Duration.ofMillis(1), Duration.ofMillis(1)), 1)).run(testKit.system());
      assertThrows(ExecutionException.class, () -> await(failing.whenStopped()));
      recording.stop();
      Path file = dir.resolve("projection.jfr");
      recording.dump(file);
      events = RecordingFile.readAllEvents(file);
    }
    Map<String, List<RecordedEvent>> byName = events.stream().filter(e -> e.getEventType().getName().startsWith("io.commitlane.Projection"))
        .collect(Collectors.groupingBy(e -> e.getEventType().getName()));
    List<RecordedEvent> batches = byName.get("io.commitlane.ProjectionBatch");
    List<String> outcomes = batches.stream().map(e -> e.getString("outcome")).toList();
    assertTrue(outcomes.contains("CONFLICTED"), outcomes.toString());
    assertEquals(2, outcomes.stream().filter("COMMITTED"::equals).count(), outcomes.toString());
    RecordedEvent committed = batches.stream()   // B's batch of orders 1..3
        .filter(e -> e.getString("outcome").equals("COMMITTED") && e.getLong("after") == -1).findFirst().orElseThrow();
    assertEquals("counts", committed.getString("projection"));
    assertTrue(committed.getString("source").startsWith("log 'orders' of database "), committed.getString("source"));
    assertEquals(third, committed.getLong("position"));
    assertEquals(3, committed.getInt("records"));
    assertFalse(committed.getDuration().isNegative());
    assertTrue(committed.getDuration("lag").compareTo(Duration.ZERO) >= 0);

    List<RecordedEvent> failed = byName.get("io.commitlane.ProjectionFailed").stream()
        .sorted(java.util.Comparator.comparing(RecordedEvent::getStartTime)).toList(); // a recording orders by thread buffer
    assertEquals(List.of("RESTART", "STOP"), failed.stream().map(e -> e.getString("action")).toList());
    assertTrue(failed.get(0).getString("error").contains("bad order"), failed.get(0).getString("error"));
    assertEquals(1, failed.get(0).getInt("records"));
  }
}
