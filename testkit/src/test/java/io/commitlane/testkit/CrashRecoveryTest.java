package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.testkit.pekko.CommitlaneTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kill -9 with the RocksDB WAL off: whatever moment the kill lands on, reopening (which replays
 * the transaction log) must show every acknowledged commit and no partial one, in every append mode.
 */
@CommitlaneTest
@ExtendWith(LogCapturingExtension.class)
@ParameterizedClass(name = "txlog.append = {0}")
@ValueSource(strings = {"serialized", "leaderless", "actor"})
class CrashRecoveryTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @Parameter String append;

  @TempDir
  Path dir;

  /**
   * Repeated kills at seeded random acknowledgement counts, reopening the same database each time:
   * 10 rounds in every append mode on every build (each a JVM of its own), half of them with
   * scanning transactions. A soak run ({@code -Dsoak=true}, {@link SoakOnly}) runs 20 in
   * the default mode, the first 10 of them the same as the build's.
   */
  @Test
  void killsAtRandomMomentsLoseNoAcknowledgedCommit() throws Exception {
    Random random = new Random(20261202L);
    java.util.Set<String> acknowledged = new HashSet<>();
    long attemptedUpTo = 0;
    // The default mode gets the most rounds in a soak run; the others have kill tests of their own
    // too (LeaderlessCrashTest, ActorLogCrashTest).
    int rounds = append.equals("serialized") && SoakOnly.soak() ? 20 : 10;
    for (int round = 0; round < rounds; round++) {
      int acks = 1 + random.nextInt(400);
      // Odd rounds put scanning transactions in the history.
      CrashRun run = CrashHarness.of(LoggedCommitsWorkload.class, dir)
          .args("replay=on", "append=" + append, "scans=" + (round % 2 == 1 ? "on" : "off")).killAfterAcks(acks).run();
      assertTrue(run.killed(), "round " + round + ": the workload ended by itself: " + run.stderr());
      assertTrue(run.acknowledged().size() >= acks);
      // Each round numbers transactions from 1 again and rewrites the same keys with the same values,
      // so the union of what any round acknowledged must be visible.
      acknowledged.addAll(run.acknowledged());
      attemptedUpTo = Math.max(attemptedUpTo, run.acknowledgedNumbers().stream().mapToLong(Long::longValue).max().orElse(0) + 64);
      assertRecovered(acknowledged, attemptedUpTo, "round " + round + " (kill after " + acks + " acks)");
    }
  }

  /** Kills at exact points of one commit: after its log append (not written), after its write (watermark not moved). */
  @ParameterizedTest
  @ValueSource(strings = {"LOG_APPENDED", "WRITTEN", "VALIDATED"})
  void killsAtANamedStageLoseNothingAndExposeNoPartialTransaction(String stage) throws Exception {
    int nth = 150;
    CrashRun run = CrashHarness.of(LoggedCommitsWorkload.class, dir)
        .args("replay=on", "append=" + append, "hold=" + stage + ":" + nth).killAt(CrashPoints.marker(CommitStage.valueOf(stage), nth)).run();
    assertTrue(run.killed());
    assertEquals(List.of(CrashPoints.marker(CommitStage.valueOf(stage), nth)), run.markers());
    // The held commit does not hold the others (two commit threads): until the kill lands, later
    // commits keep being acknowledged, so what may be in the database reaches past the last of them
    // by what the workload keeps in flight, however long the kill took to arrive.
    long lastAcknowledged = run.acknowledgedNumbers().stream().mapToLong(Long::longValue).max().orElse(0);
    assertRecovered(new HashSet<>(run.acknowledged()), Math.max(nth, lastAcknowledged) + 64, "kill at " + stage + " of commit " + nth);
  }

  /**
   * The two-lane pipeline: the log lane appends a commit's record and a commit thread writes it,
   * so a kill can land between the two on different threads. Kills at random moments, and while
   * a commit is held just after its append (the hand-off) or just after its write.
   */
  @Test
  void theTwoLanePipelineLosesNoAcknowledgedCommitWhenKilled() throws Exception {
    Random random = new Random(20261205L);
    java.util.Set<String> acknowledged = new HashSet<>();
    long attemptedUpTo = 0;
    for (int round = 0; round < 4; round++) {
      int acks = 1 + random.nextInt(400);
      CrashRun run = CrashHarness.of(LoggedCommitsWorkload.class, dir)
          .args("replay=on", "append=" + append, "mode=two-lane", "scans=" + (round % 2 == 1 ? "on" : "off"))
          .killAfterAcks(acks).run();
      assertTrue(run.killed(), "round " + round + ": the workload ended by itself: " + run.stderr());
      acknowledged.addAll(run.acknowledged());
      attemptedUpTo = Math.max(attemptedUpTo, run.acknowledgedNumbers().stream().mapToLong(Long::longValue).max().orElse(0) + 64);
      assertRecovered(acknowledged, attemptedUpTo, "two-lane round " + round + " (kill after " + acks + " acks)");
    }
    for (String stage : List.of("LOG_APPENDED", "WRITTEN")) {
      int nth = 150;
      String marker = CrashPoints.marker(CommitStage.valueOf(stage), nth);
      CrashRun run = CrashHarness.of(LoggedCommitsWorkload.class, dir)
          .args("replay=on", "append=" + append, "mode=two-lane", "hold=" + stage + ":" + nth).killAt(marker).run();
      assertTrue(run.killed(), run.stderr());
      acknowledged.addAll(run.acknowledged());
      long last = run.acknowledgedNumbers().stream().mapToLong(Long::longValue).max().orElse(0);
      attemptedUpTo = Math.max(attemptedUpTo, Math.max(nth, last) + 64);
      assertRecovered(acknowledged, attemptedUpTo, "two-lane kill at " + stage + " of commit " + nth);
    }
  }

  /** A merged write group acknowledged and never flushed: the kill loses none of its members (replayed from the log). */
  @Test
  void aKillAfterAMergedGroupWasAcknowledgedLosesNoMember() throws Exception {
    String marker = LoggedCommitsWorkload.BURST_ACKED + " groups=1 members=7";
    CrashRun run = CrashHarness.of(LoggedCommitsWorkload.class, dir).args("replay=on", "append=" + append, "burst=on").killAt(marker).run();
    assertTrue(run.killed(), run.stderr());
    assertEquals(List.of(marker), run.markers(), "commits 2..8 were written as one group of 7");
    assertEquals(8, run.acknowledged().size());
    assertRecovered(new HashSet<>(run.acknowledged()), 8, "kill after a merged group");
  }

  /** The checker's own test: a recovery that cannot replay (records carry no writes) is caught. */
  @Test
  void aRecoveryWithoutReplayIsCaughtLosingAcknowledgedCommits() throws Exception {
    CrashRun run = CrashHarness.of(LoggedCommitsWorkload.class, dir).args("replay=off", "append=" + append).killAfterAcks(100).run();
    List<String> violations = recover(new HashSet<>(run.acknowledged()), 200, "off");
    assertFalse(violations.isEmpty(), "with the WAL off and no replay, unflushed acknowledged commits must be lost");
    assertTrue(violations.get(0).startsWith("acknowledged transaction"), violations.get(0));
  }

  private void assertRecovered(java.util.Set<String> acknowledged, long attemptedUpTo, String what) {
    List<String> violations = recover(acknowledged, attemptedUpTo, "on");
    assertEquals(List.of(), violations.size() > 5 ? violations.subList(0, 5) : violations, what);
  }

  private List<String> recover(java.util.Set<String> acknowledged, long attemptedUpTo, String replay) {
    Map<String, Map<String, String>> attempted = new LinkedHashMap<>();
    for (long i = 1; i <= attemptedUpTo; i++) {
      attempted.put(Long.toString(i), LoggedCommitsWorkload.writes(i));
    }
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir,
        LoggedCommitsWorkload.settings(testKit.system(), replay, 2, append))) {
      Database storage = db.storage();
      return RecoveryCheck.check(attempted, acknowledged, key -> {
        byte[] v = storage.get(key.getBytes(StandardCharsets.UTF_8));
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
      });
    }
  }
}
