package io.commitlane.testkit;

import io.commitlane.testkit.pekko.RecoveryRunner;
import io.commitlane.testkit.pekko.RecoveryCrashWorkload;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Recovery after kill -9 never goes back in time, checked against a model: a random history runs
 * in a forked JVM that is killed after a random number of acknowledged commits; the reopened
 * database must hold the state of a prefix of commit order that contains every acknowledged
 * commit (see {@link RecoveryModel#checkCrash}). Every append mode, the RocksDB WAL on and off.
 */
class RecoveryCrashTest {
  private static ActorSystem<Void> system;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    system = ActorSystem.create(Behaviors.empty(), "recovery-crash-check");
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  static Stream<Arguments> runs() {
    Stream.Builder<Arguments> b = Stream.builder();
    long[] seeds = {11, 12, 13};
    for (String append : List.of("serialized", "leaderless", "actor")) {
      for (boolean wal : List.of(false, true)) {
        for (long seed : seeds) {
          b.add(Arguments.of(append, wal, seed, "threads"));
        }
        b.add(Arguments.of(append, wal, 14L, "two-lane")); // the two-lane pipeline: logs and writes on different threads
      }
    }
    return b.build();
  }

  @ParameterizedTest(name = "{0}, wal {1}, seed {2}, mode {3}")
  @MethodSource("runs")
  void aKillAtARandomPointRecoversAPrefixHoldingEveryAcknowledgedCommit(String append, boolean wal, long seed, String mode)
      throws Exception {
    RecoveryHistory history = RecoveryHistory.generate(seed);
    int commits = 0;
    for (var step : history.steps()) {
      commits += RecoveryModel.commitsOf(step).size();
    }
    int killAfter = 1 + new Random(seed * 31 + (wal ? 1 : 0) + append.length()).nextInt(Math.max(1, commits));
    CrashRun run = CrashHarness.of(RecoveryCrashWorkload.class, dir)
        .args("seed=" + seed, "wal=" + (wal ? "on" : "off"), "append=" + append, "mode=" + mode)
        .killAfterAcks(killAfter).timeout(Duration.ofSeconds(90)).run();
    assertTrue(run.killed() || run.markers().contains("done"), run.stderr());
    Set<Integer> succeeded = new HashSet<>();
    run.acknowledged().forEach(id -> succeeded.add(Integer.parseInt(id)));
    Set<Integer> failed = new HashSet<>();
    int durable = 0;
    for (String m : run.markers()) {
      if (m.startsWith("failed:")) {
        failed.add(Integer.parseInt(m.substring(7)));
      } else if (m.startsWith("durable:")) {
        durable = Math.max(durable, Integer.parseInt(m.substring(8)));
      }
    }
    try (CommitlaneDatabase db = Commitlane.get(system).open(dir,
        RecoveryCrashWorkload.settings(system, wal, append, 1, mode))) {
      Map<String, String> state = RecoveryModel.read(history,
          k -> RecoveryRunner.string(db.storage().get(RecoveryRunner.bytes(k))));
      assertNull(RecoveryModel.checkCrash(history, succeeded, failed, wal, durable, state),
          "killed after " + run.acknowledged().size() + " acknowledgements of " + history);
    }
  }
}
