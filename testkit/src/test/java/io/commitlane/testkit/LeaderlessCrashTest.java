package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.Database;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.ReadRequest;
import io.commitlane.txlog.TransactionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kill -9 of a leaderless, fsync-durability log in the middle of a buffer sync or of a segment
 * switch (and at random moments): reopening loses no acknowledged commit, exposes no partial
 * one, and reads the log back in position order.
 */
class LeaderlessCrashTest {
  private static ActorTestKit testKit;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @ParameterizedTest(name = "kill while the {0}")
  @ValueSource(strings = {"sync:40", "sync:41", "switch:6"})
  void aKillDuringASyncOrASwitchLosesNothingAcknowledged(String hold) throws Exception {
    String marker = hold.replace(':', '-');
    CrashRun run = CrashHarness.of(LeaderlessLogWorkload.class, dir).args("hold=" + hold).killAt(marker).run();
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
      CrashRun run = CrashHarness.of(LeaderlessLogWorkload.class, dir).killAfterAcks(acks).run();
      assertTrue(run.killed(), "round " + round + ": " + run.stderr());
      acknowledged.addAll(run.acknowledged());
      attemptedUpTo = Math.max(attemptedUpTo, maxAcknowledged(run) + 64);
      assertRecovered(acknowledged, attemptedUpTo, "round " + round + " (kill after " + acks + " acks)");
    }
  }

  private static long maxAcknowledged(CrashRun run) {
    return run.acknowledgedNumbers().stream().mapToLong(Long::longValue).max().orElse(0);
  }

  private void assertRecovered(Set<String> acknowledged, long attemptedUpTo, String what) {
    Map<String, Map<String, String>> attempted = new LinkedHashMap<>();
    for (long i = 1; i <= attemptedUpTo; i++) {
      attempted.put(Long.toString(i), LoggedCommitsWorkload.writes(i));
    }
    try (CommitlaneDatabase db = CommitlaneDatabase.open(testKit.system(), dir,
        LeaderlessLogWorkload.settings(testKit.system()))) {
      Database storage = db.storage();
      List<String> violations = RecoveryCheck.check(attempted, acknowledged, key -> {
        byte[] v = storage.get(key.getBytes(StandardCharsets.UTF_8));
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
      });
      assertEquals(List.of(), violations.size() > 5 ? violations.subList(0, 5) : violations, what);
      // The log reads back in position order, and holds every acknowledged commit's record.
      TransactionLog log = db.transactionLog("main");
      List<Long> positions = new ArrayList<>();
      Set<String> logged = new HashSet<>();
      try (LogReader reader = log.reader(ReadRequest.fromStart())) {
        for (LogRecord r = reader.next(); r != null; r = reader.next()) {
          positions.add(r.position());
          byte[] e = new byte[r.entries().get(0).remaining()];
          r.entries().get(0).duplicate().get(e);
          logged.add(new String(e, StandardCharsets.UTF_8));
        }
      }
      List<Long> sorted = new ArrayList<>(positions);
      sorted.sort(null);
      assertEquals(sorted, positions, what + ": position order");
      Set<String> missing = new HashSet<>(acknowledged);
      missing.removeAll(logged);
      assertEquals(Set.of(), missing, what + ": acknowledged records missing from the log");
    }
  }
}
