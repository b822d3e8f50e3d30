package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.testkit.pekko.CommitlaneTest;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
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
 * kill -9 of a leaderless, fsync-durability log in the middle of a buffer sync or of a segment
 * switch (and at random moments): reopening loses no acknowledged commit, exposes no partial
 * one, and reads the log back in position order.
 */
@CommitlaneTest
@ExtendWith(LogCapturingExtension.class)
class LeaderlessCrashTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  @ParameterizedTest(name = "kill while the {0}")
  @ValueSource(strings = {"sync:40", "sync:41", "switch:6"})
  void aKillDuringASyncOrASwitchLosesNothingAcknowledged(String hold) throws Exception {
    String marker = hold.replace(':', '-');
    CrashRun run = CrashHarness.of(FsyncLogWorkload.class, dir).args("hold=" + hold).killAt(marker).run();
    assertTrue(run.killed(), run.stderr());
    assertEquals(List.of(marker), run.markers());
    assertRecovered(new HashSet<>(run.acknowledged()), maxAcknowledged(run) + 64, "kill at " + marker);
  }

  @Test
  void killsAtRandomMomentsLoseNothingAcknowledged() throws Exception {
    java.util.Random random = new java.util.Random(20261202L);
    Set<String> acknowledged = new HashSet<>();
    long attemptedUpTo = 0;
    for (int round = 0; round < 3; round++) {
      int acks = 50 + random.nextInt(300);
      CrashRun run = CrashHarness.of(FsyncLogWorkload.class, dir).killAfterAcks(acks).run();
      assertTrue(run.killed(), "round " + round + ": " + run.stderr());
      acknowledged.addAll(run.acknowledged());
      attemptedUpTo = Math.max(attemptedUpTo, maxAcknowledged(run) + 64);
      assertRecovered(acknowledged, attemptedUpTo, "round " + round + " (kill after " + acks + " acks)");
    }
  }

  private static long maxAcknowledged(CrashRun run) {
    return FsyncLogCrashCheck.maxAcknowledged(run);
  }

  private void assertRecovered(Set<String> acknowledged, long attemptedUpTo, String what) {
    FsyncLogCrashCheck.assertRecovered(testKit.system(), dir, "leaderless", acknowledged, attemptedUpTo, what);
  }
}
