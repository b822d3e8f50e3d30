package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.testkit.pekko.CommitlaneTest;
import io.commitlane.testkit.pekko.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The example of docs/testkit.md, run here; TestkitDocsTest checks that the page shows this code. */
// docs: example
@CommitlaneTest(commitThreads = 2)             // two executors: one for the held commit, one for the rest
@ExtendWith(LogCapturingExtension.class)       // log lines are printed only when a test fails
class OvertakeExampleTest {
  private static final Duration STEP = Duration.ofSeconds(30);

  private static CompletionStage<CommitResult> put(CommitlaneDatabase db, String tag) {
    byte[] key = tag.getBytes(StandardCharsets.UTF_8);
    return db.commit(db.begin().tag(tag).put(key, key));
  }

  @Test
  void aSmallCommitOvertakesOneHeldAfterItsWrite(TestDatabase db) throws Exception {
    StageSchedule s = db.control().schedule(STEP, "big", "small");
    CompletionStage<CommitResult> big = put(db.database(), "big");
    s.letReach("big", CommitStage.WRITTEN);    // written, not finished: it holds one executor
    CompletionStage<CommitResult> small = put(db.database(), "small");
    s.letFinish("small");                      // runs on the other executor
    assertFalse(big.toCompletableFuture().isDone());
    s.letFinish("big");
    big.toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertEquals(List.of("small", "big"), db.control().trace().order(CommitStage.FINISHED));
  }

  @Test
  @CommitlaneTest(commitThreads = 1)           // one executor: the held commit blocks the lane
  void withOneExecutorTheSameStepFailsAtOnce(TestDatabase db) {
    StageSchedule s = db.control().schedule(STEP, "big", "small");
    put(db.database(), "big");
    s.letReach("big", CommitStage.WRITTEN);
    put(db.database(), "small");
    NoFreeExecutorException e = assertThrows(NoFreeExecutorException.class, () -> s.letFinish("small"));
    assertTrue(e.getMessage().contains("@CommitlaneTest(commitThreads = 2)"), e.getMessage());
  }
}
// end docs: example
