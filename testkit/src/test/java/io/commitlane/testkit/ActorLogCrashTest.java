package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.testkit.pekko.CommitlaneTest;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kill -9 of an actor-written, fsync-durability log while its writer is in the middle of a batch
 * write, of a force, or of a segment creation (and at random moments): reopening loses no
 * acknowledged commit, exposes no partial one, and reads the log back in position order.
 */
@CommitlaneTest
@ExtendWith(LogCapturingExtension.class)
class ActorLogCrashTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  @ParameterizedTest(name = "kill while the writer is in {0}")
  @ValueSource(strings = {"write:40", "force:40", "switch:6"})
  void aKillDuringABatchWriteAForceOrASegmentCreationLosesNothingAcknowledged(String hold) throws Exception {
    String marker = hold.replace(':', '-');
    CrashRun run = CrashHarness.of(FsyncLogWorkload.class, dir).args("append=actor", "hold=" + hold).killAt(marker).run();
    assertTrue(run.killed(), run.stderr());
    assertEquals(List.of(marker), run.markers());
    FsyncLogCrashCheck.assertRecovered(testKit.system(), dir, "actor", new HashSet<>(run.acknowledged()),
        FsyncLogCrashCheck.maxAcknowledged(run) + 64, "kill at " + marker);
  }

  @Test
  void killsAtRandomMomentsLoseNothingAcknowledged() throws Exception {
    Random random = new Random(20261203L);
    Set<String> acknowledged = new HashSet<>();
    long attemptedUpTo = 0;
    for (int round = 0; round < 3; round++) {
      int acks = 50 + random.nextInt(300);
      CrashRun run = CrashHarness.of(FsyncLogWorkload.class, dir).args("append=actor").killAfterAcks(acks).run();
      assertTrue(run.killed(), "round " + round + ": " + run.stderr());
      acknowledged.addAll(run.acknowledged());
      attemptedUpTo = Math.max(attemptedUpTo, FsyncLogCrashCheck.maxAcknowledged(run) + 64);
      FsyncLogCrashCheck.assertRecovered(testKit.system(), dir, "actor", acknowledged, attemptedUpTo,
          "round " + round + " (kill after " + acks + " acks)");
    }
  }
}
