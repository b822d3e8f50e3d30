package io.commitlane.testkit;

import io.commitlane.testkit.pekko.OpenFaults;
import io.commitlane.testkit.pekko.RecoveryRunner;
import io.commitlane.testkit.pekko.RecoveryCrashWorkload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.testkit.RecoveryHistory.Commit;
import io.commitlane.testkit.RecoveryHistory.Reopen;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Recovery never goes back in time, checked against a model: random histories of puts and
 * removes over a small key set, through one to three logs and without a log, plain writes,
 * flushes, merged write groups, the RocksDB WAL on and off and every append mode; after every
 * clean close and reopen the database holds exactly the state of the commits that succeeded; and
 * an open that fails or halts part-way is followed by one that never goes back in time.
 */
class RecoveryModelProperties {
  private static ActorSystem<Void> system;

  @BeforeContainer
  static void start() {
    system = ActorSystem.create(Behaviors.empty(), "recovery-model");
  }

  @AfterContainer
  static void stop() {
    system.terminate();
  }

  @Property(tries = 1000, seed = "20261203")
  void aCleanReopenYieldsExactlyTheLastCommittedState(@ForAll long seed, @ForAll boolean walOn,
      @ForAll("appendModes") String append, @ForAll @IntRange(min = 1, max = 2) int commitThreads,
      @ForAll("pipelineModes") String mode) throws IOException {
    RecoveryHistory history = RecoveryHistory.generate(seed);
    Path dir = Files.createTempDirectory(scratch(), "recovery-model");
    try {
      PipelineSettings settings = RecoveryCrashWorkload.settings(system, walOn, append, commitThreads, mode);
      List<Commit> succeeded = Collections.synchronizedList(new ArrayList<>());
      int[] step = {0};
      RecoveryRunner runner = new RecoveryRunner(history, () -> {
        CommitlaneDatabase db = CommitlaneDatabase.open(system, dir, settings);
        if (step[0] > 0) {
          assertState(history, succeeded, db, "after the reopen before step " + step[0]);
        }
        return db;
      });
      CommitlaneDatabase db = runner.run(new RecoveryRunner.Listener() {
        @Override
        public void succeeded(Commit c) {
          succeeded.add(c);
        }

        @Override
        public void failed(Commit c, Throwable cause) {
          // A (false) conflict writes nothing: the model leaves it out.
        }

        @Override
        public void stepStarting(int index) {
          step[0] = index;
        }
      });
      assertState(history, succeeded, db, "before the final close");
      db.close();
      try (CommitlaneDatabase reopened = CommitlaneDatabase.open(system, dir, settings)) {
        assertState(history, succeeded, reopened, "after the final reopen");
        reopened.replayStatsAtOpen().forEach((log, stats) -> assertEquals(0, stats.transactions(),
            "a clean close leaves nothing to replay in " + log + ": " + stats));
      }
    } finally {
      delete(dir);
    }
  }

  /**
   * An open that fails or halts part-way (at a flushed-position file it writes, after replay's
   * flush), or a lost or damaged flushed-position file, never makes the next normal open
   * go back in time. After a clean close: exactly the model's state. After a halt (a copy of the
   * running database): a prefix of commit order holding every acknowledged commit. Either way the
   * state stays the same across a further clean reopen.
   */
  @Property(tries = 100, seed = "20261205", shrinking = ShrinkingMode.OFF) // a smaller seed is no simpler history
  void anOpenThatFailsOrHaltsIsFollowedByOneThatNeverGoesBackInTime(@ForAll long seed, @ForAll boolean walOn,
      @ForAll("appendModes") String append, @ForAll OpenFaults fault, @ForAll @IntRange(min = 1, max = 4) int at)
      throws IOException {
    RecoveryHistory history = RecoveryHistory.generate(seed);
    Path root = Files.createTempDirectory(scratch(), "recovery-open-faults");
    try {
      Path dir = root.resolve("db");
      Path image = root.resolve("image");
      PipelineSettings settings = settings(walOn, append, 1);
      List<Commit> succeeded = Collections.synchronizedList(new ArrayList<>());
      Set<Integer> failed = ConcurrentHashMap.newKeySet();
      int[] durable = {0};
      RecoveryRunner runner = new RecoveryRunner(history, () -> CommitlaneDatabase.open(system, dir, settings));
      CommitlaneDatabase db = runner.run(new RecoveryRunner.Listener() {
        @Override
        public void succeeded(Commit c) {
          succeeded.add(c);
        }

        @Override
        public void failed(Commit c, Throwable cause) {
          failed.add(c.id());
        }

        @Override
        public void durableThrough(int steps) {
          durable[0] = steps;
        }
      });
      OpenFaults.copyRunning(dir, image); // a halt now
      db.close();
      Set<Integer> acknowledged = new HashSet<>();
      succeeded.forEach(c -> acknowledged.add(c.id()));
      if (fault.damagesTheFile()) {
        fault.open(system, dir, settings, at, root.resolve("unused"));
        try (CommitlaneDatabase reopened = CommitlaneDatabase.open(system, dir, settings)) {
          assertState(history, succeeded, reopened, fault + " " + at + " after a clean close");
        }
      }
      Path recover = fault.open(system, image, settings, at, root.resolve("halted"));
      Statistics.collect(fault, recover.equals(image) ? "ran to its end" : "halted"); // how often each fault bit
      Map<String, String> recovered;
      try (CommitlaneDatabase reopened = CommitlaneDatabase.open(system, recover, settings)) {
        recovered = RecoveryModel.read(history, k -> RecoveryRunner.string(reopened.storage().get(RecoveryRunner.bytes(k))));
      }
      assertNull(RecoveryModel.checkCrash(history, acknowledged, failed, walOn, durable[0], recovered),
          fault + " " + at + (recover.equals(image) ? "" : " (halted)") + " then a normal open, of " + history);
      try (CommitlaneDatabase reopened = CommitlaneDatabase.open(system, recover, settings)) {
        assertEquals(recovered, RecoveryModel.read(history,
            k -> RecoveryRunner.string(reopened.storage().get(RecoveryRunner.bytes(k)))), "a further clean reopen");
      }
    } finally {
      delete(root);
    }
  }

  /** The default pipeline, and the two-lane one (log appends and RocksDB writes on different threads). */
  @Provide
  Arbitrary<String> pipelineModes() {
    return Arbitraries.of("threads", "two-lane");
  }

  @Provide
  Arbitrary<String> appendModes() {
    return Arbitraries.of("serialized", "leaderless", "actor");
  }

  /** Commits succeeded in history order; within a burst keys are disjoint, so order is free there. */
  private static void assertState(RecoveryHistory h, List<Commit> succeeded, CommitlaneDatabase db, String when) {
    List<Commit> ordered;
    synchronized (succeeded) {
      ordered = new ArrayList<>(succeeded);
    }
    ordered.sort(Comparator.comparingInt(Commit::id));
    Map<String, String> expected = RecoveryModel.apply(ordered);
    Map<String, String> actual = RecoveryModel.read(h, k -> RecoveryRunner.string(db.storage().get(RecoveryRunner.bytes(k))));
    assertEquals(expected, actual, when + " of " + h);
  }

  static PipelineSettings settings(boolean walOn, String append, int commitThreads) {
    return settings(system, walOn, append, commitThreads);
  }

  static PipelineSettings settings(ActorSystem<?> system, boolean walOn, String append, int commitThreads) {
    return RecoveryCrashWorkload.settings(system, walOn, append, commitThreads);
  }

  /**
   * Where the histories' databases go: a memory file system when there is one. Nothing here
   * survives a crash by design (the kill -9 tests check that on a disk); this property checks the
   * logic of replay and close, and fsyncs on a disk would only make it slow.
   */
  static Path scratch() throws IOException {
    Path shm = Path.of("/dev/shm");
    return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
  }

  static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  static boolean hasReopen(RecoveryHistory h) {
    return h.steps().stream().anyMatch(s -> s instanceof Reopen);
  }
}
