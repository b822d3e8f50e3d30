package io.commitlane.testkit;

import io.commitlane.testkit.pekko.OpenFaults;
import io.commitlane.testkit.pekko.RecoveryRunner;
import io.commitlane.testkit.pekko.RecoveryCrashWorkload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.testkit.RecoveryHistory.Commit;
import io.commitlane.testkit.RecoveryHistory.Reopen;
import io.commitlane.testkit.RecoveryHistory.Step;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import org.apache.pekko.stream.javadsl.Sink;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
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
import net.jqwik.api.lifecycle.AddLifecycleHook;
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

  /**
   * 300 histories on every build: about 12 for each of the 24 configurations (WAL, append mode,
   * commit threads, pipeline), and the coverage check below fails the property unless each
   * configuration ran histories with every kind of step (a clean reopen, a flush, a plain write,
   * a merged write group) and with one and with several logs. The long version runs 950 histories
   * ({@link #aCleanReopenYieldsExactlyTheLastCommittedStateInASoakRun}).
   */
  @Property(tries = 300, seed = "20261203")
  void aCleanReopenYieldsExactlyTheLastCommittedState(@ForAll long seed, @ForAll boolean walOn,
      @ForAll("appendModes") String append, @ForAll @IntRange(min = 1, max = 2) int commitThreads,
      @ForAll("pipelineModes") String mode) throws IOException {
    checkACleanReopen(seed, walOn, append, commitThreads, mode);
  }

  /** The long version of the property above, run with {@code -Dsoak=true} ({@link SoakOnly}). */
  @Property(tries = 950, seed = "20261203")
  @AddLifecycleHook(SoakOnly.class)
  void aCleanReopenYieldsExactlyTheLastCommittedStateInASoakRun(@ForAll long seed, @ForAll boolean walOn,
      @ForAll("appendModes") String append, @ForAll @IntRange(min = 1, max = 2) int commitThreads,
      @ForAll("pipelineModes") String mode) throws IOException {
    checkACleanReopen(seed, walOn, append, commitThreads, mode);
  }

  /** What each configuration's histories held, for the coverage check. */
  private static final String HISTORIES = "histories of each configuration";
  private static final List<String> STEP_KINDS = List.of("a clean reopen", "a flush", "a plain write", "a merged write group",
      "one log", "several logs");

  private void checkACleanReopen(long seed, boolean walOn, String append, int commitThreads, String mode) throws IOException {
    RecoveryHistory history = RecoveryHistory.generate(seed);
    String configuration = configuration(walOn, append, commitThreads, mode);
    for (String kind : stepKinds(history)) {
      Statistics.label(HISTORIES).collect(configuration, kind);
    }
    Statistics.label(HISTORIES).coverage(coverage -> {
      for (boolean wal : List.of(true, false)) {
        for (String a : APPEND_MODES) {
          for (int threads = 1; threads <= 2; threads++) {
            for (String m : PIPELINE_MODES) {
              for (String kind : STEP_KINDS) {
                coverage.check(configuration(wal, a, threads, m), kind).count(n -> n > 0);
              }
            }
          }
        }
      }
    });
    Path dir = Files.createTempDirectory(scratch(), "recovery-model");
    try {
      PipelineSettings settings = RecoveryCrashWorkload.settings(system, walOn, append, commitThreads, mode);
      List<Commit> succeeded = Collections.synchronizedList(new ArrayList<>());
      int[] step = {0};
      Map<String, Long> handled = new HashMap<>(); // per log, the last record a consumer read before the reopen
      RecoveryRunner runner = new RecoveryRunner(history, () -> {
        CommitlaneDatabase db = Commitlane.get(system).open(dir, settings);
        if (step[0] > 0) {
          assertState(history, succeeded, db, "after the reopen before step " + step[0]);
          assertFeed(history, succeeded, Set.of(), db, dir, handled, false, "after the reopen before step " + step[0]);
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
      try (CommitlaneDatabase reopened = Commitlane.get(system).open(dir, settings)) {
        assertState(history, succeeded, reopened, "after the final reopen");
        assertFeed(history, succeeded, Set.of(), reopened, dir, handled, true, "after the final reopen");
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
      RecoveryRunner runner = new RecoveryRunner(history, () -> Commitlane.get(system).open(dir, settings));
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
        try (CommitlaneDatabase reopened = Commitlane.get(system).open(dir, settings)) {
          assertState(history, succeeded, reopened, fault + " " + at + " after a clean close");
        }
      }
      Path recover = fault.open(system, image, settings, at, root.resolve("halted"));
      Statistics.collect(fault, recover.equals(image) ? "ran to its end" : "halted"); // how often each fault bit
      Map<String, String> recovered;
      try (CommitlaneDatabase reopened = Commitlane.get(system).open(recover, settings)) {
        recovered = RecoveryModel.read(history, k -> RecoveryRunner.string(reopened.storage().get(RecoveryRunner.bytes(k))));
      }
      assertNull(RecoveryModel.checkCrash(history, acknowledged, failed, walOn, durable[0], recovered),
          fault + " " + at + (recover.equals(image) ? "" : " (halted)") + " then a normal open, of " + history);
      try (CommitlaneDatabase reopened = Commitlane.get(system).open(recover, settings)) {
        assertEquals(recovered, RecoveryModel.read(history,
            k -> RecoveryRunner.string(reopened.storage().get(RecoveryRunner.bytes(k)))), "a further clean reopen");
      }
    } finally {
      delete(root);
    }
  }

  /**
   * Writes with request ids through the actor protocol, the log at {@code fsync} durability, and
   * one fsync that fails (before a chosen burst): the writes it covered are reported written but
   * not durable, and every write not answered {@code Committed} is sent again with its id. A
   * repeat is never answered {@code Committed} while the database stays open for a write that was
   * not durable, and whatever was answered {@code Committed}, first time or repeated, is there
   * after a power loss (the log loses what was not synced, RocksDB what it had not flushed with
   * the WAL off) or a clean close, and the logs hold exactly the records of what is there. After
   * the reopen a repeat is answered {@code Committed} from the record exactly when the write is
   * there.
   */
  @Property(tries = 50, seed = "20261207", shrinking = ShrinkingMode.OFF) // a smaller seed is no simpler history
  void aRepeatIsNeverAnsweredCommittedForAWriteThatIsThenLost(@ForAll long seed, @ForAll boolean walOn,
      @ForAll("appendModes") String append, @ForAll boolean powerLoss, @ForAll @IntRange(min = 0, max = 12) int failAt)
      throws IOException {
    RecoveryHistory history = RecoveryHistory.generate(seed);
    Path root = Files.createTempDirectory(scratch(), "recovery-fsync");
    try {
      Path dir = root.resolve("db");
      Path image = root.resolve("image");
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      PipelineSettings settings = fsyncSettings(walOn, append);
      FsyncFailureRun run = new FsyncFailureRun(system, history, fs, failAt);
      Map<String, Long> handled = new HashMap<>();
      CommitlaneDatabase db = run.run(() -> Commitlane.get(system).open(dir, OpenFaults.withFileSystem(settings, fs)),
          reopened -> settleAfterACleanClose(history, run, reopened, dir, handled, "after a reopen"));
      assertEquals(List.of(), run.violations, history.toString());
      Statistics.collect(run.notDurable == 0 ? "no write reported not durable" : "writes reported not durable",
          powerLoss ? "then a power loss" : "then a clean close");
      if (!powerLoss) {
        FsyncFailureRun.closeQuietly(db);
        try (CommitlaneDatabase reopened = Commitlane.get(system).open(dir, settings)) {
          settleAfterACleanClose(history, run, reopened, dir, handled, "after the last clean close");
        }
        return;
      }
      fs.crash(); // the log loses what no fsync covered
      OpenFaults.copyRunning(dir, image); // RocksDB keeps what it flushed, and with the WAL on its WAL
      FsyncFailureRun.closeQuietly(db);
      try (CommitlaneDatabase reopened = Commitlane.get(system).open(image, settings)) {
        Map<String, String> recovered = RecoveryModel.read(history,
            k -> RecoveryRunner.string(reopened.storage().get(RecoveryRunner.bytes(k))));
        Map<String, List<Integer>> feed = feed(history, reopened, image, false);
        String why = RecoveryModel.checkCrash(history, run.outcomes(), walOn, run.durableThrough, recovered, feed);
        assertNull(why, "after a power loss, of " + history);
        // A repeat answered from the id's record (nothing written again) vouches for the write: it must be there.
        for (int id : List.copyOf(run.unknown)) {
          Commit c = commit(history, id);
          Map<String, List<Integer>> before = feed(history, reopened, image, false);
          if (run.send(reopened, List.of(c)).get(c) instanceof Committed
              && before.equals(feed(history, reopened, image, false))) {
            Set<Integer> vouched = new HashSet<>(run.acknowledged);
            vouched.add(id);
            Set<Integer> open = new HashSet<>(run.unknown);
            open.remove(id);
            // The data only: RocksDB may have kept the write (a flush, its WAL) while the log lost its record.
            assertNull(RecoveryModel.checkCrash(history, new RecoveryModel.Outcomes(vouched, run.failed, open,
                run.recordless), walOn, run.durableThrough, recovered, null),
                "commit " + id + " was answered Committed from its record after the power loss, of " + history);
          }
        }
      }
    } finally {
      delete(root);
    }
  }

  /**
   * After a clean close every write of unknown outcome is settled: the close flushed RocksDB, so
   * it is there or not for good, and the database and its logs must agree on one outcome for each
   * (a write there may lack its record: the record never reached the file). The database holds
   * exactly the acknowledged writes and those settled there, the logs exactly their records (read
   * from the start and resumed), and a repeat of a settled write with a record is answered {@code
   * Committed} without writing it again.
   */
  private static void settleAfterACleanClose(RecoveryHistory h, FsyncFailureRun run, CommitlaneDatabase db, Path dir,
      Map<String, Long> handled, String when) {
    Map<String, List<Integer>> feed = feed(h, db, dir, false);
    Map<String, String> data = RecoveryModel.read(h, k -> RecoveryRunner.string(db.storage().get(RecoveryRunner.bytes(k))));
    List<Integer> open = List.copyOf(run.unknown);
    Set<Integer> mayLackRecord = new HashSet<>(run.recordless);
    mayLackRecord.addAll(open);
    Set<Integer> kept = null;
    for (int mask = 0; mask < (1 << open.size()) && kept == null; mask++) {
      Set<Integer> candidate = new HashSet<>(run.acknowledged);
      for (int i = 0; i < open.size(); i++) {
        if ((mask & (1 << i)) != 0) {
          candidate.add(open.get(i));
        }
      }
      List<Commit> held = inOrder(h, candidate);
      if (RecoveryModel.apply(held).equals(data) && RecoveryModel.checkFeed(h, held, mayLackRecord, feed) == null) {
        kept = candidate;
      }
    }
    assertNotNull(kept, when + ": no outcome of the writes reported not durable " + open + " explains " + data
        + " with the logs holding " + feed + ", of " + h);
    Set<Integer> recorded = new HashSet<>();
    feed.values().forEach(recorded::addAll);
    for (int id : open) {
      run.unknown.remove(id);
      if (kept.contains(id)) {
        run.acknowledged.add(id);
        if (commit(h, id).logged() && !recorded.contains(id)) {
          run.recordless.add(id);
        }
      } else {
        run.failed.add(id);
      }
    }
    List<Commit> held = inOrder(h, run.acknowledged);
    assertState(h, held, db, when);
    assertFeed(h, held, run.recordless, db, dir, handled, false, when);
    for (int id : open) {
      Commit c = commit(h, id);
      if (kept.contains(id) && recorded.contains(id)) { // surely there (a lost one would be applied now, out of order)
        assertTrue(run.send(db, List.of(c)).get(c) instanceof Committed, when + ": a repeat of commit " + id);
      }
    }
    assertEquals(feed, feed(h, db, dir, false), when + ": answered from the records, nothing written again");
  }

  /** The commits of {@code ids}, in the order of the history's steps. */
  private static List<Commit> inOrder(RecoveryHistory h, Set<Integer> ids) {
    List<Commit> out = new ArrayList<>();
    for (Step step : h.steps()) {
      RecoveryModel.commitsOf(step).stream().filter(c -> ids.contains(c.id())).forEach(out::add);
    }
    return out;
  }

  private static Commit commit(RecoveryHistory h, int id) {
    for (Step step : h.steps()) {
      for (Commit c : RecoveryModel.commitsOf(step)) {
        if (c.id() == id) {
          return c;
        }
      }
    }
    throw new IllegalArgumentException("no commit " + id);
  }

  /**
   * Checks every log against the commits the database holds ({@link RecoveryModel#checkFeed}),
   * read from the start, and resumed after a record: after the last one a consumer read before
   * this reopen ({@code handled}, updated here), and after the one in the middle. {@code
   * throughFeed}: read through {@link ChangeFeed#current}, else through a {@link LogReader}.
   */
  private static void assertFeed(RecoveryHistory h, List<Commit> held, Set<Integer> mayLackRecord, CommitlaneDatabase db,
      Path dir, Map<String, Long> handled, boolean throughFeed, String when) {
    List<Commit> ordered;
    synchronized (held) {
      ordered = new ArrayList<>(held);
    }
    Map<String, List<Integer>> feed = new HashMap<>();
    for (String log : h.logNames()) {
      List<long[]> all = records(db, dir, log, ReadRequest.fromStart(), throughFeed);
      feed.put(log, all.stream().map(r -> (int) r[1]).toList());
      List<Long> resumeAfter = new ArrayList<>();
      if (handled.containsKey(log)) {
        resumeAfter.add(handled.get(log));
      }
      if (!all.isEmpty()) {
        resumeAfter.add(all.get(all.size() / 2)[0]);
        handled.put(log, all.get(all.size() - 1)[0]);
      }
      for (long after : resumeAfter) {
        List<Integer> expected = all.stream().filter(r -> r[0] > after).map(r -> (int) r[1]).toList();
        List<Integer> resumed = records(db, dir, log, ReadRequest.fromPosition(after).exclusive(), throughFeed).stream()
            .map(r -> (int) r[1]).toList();
        assertEquals(expected, resumed, when + ": log " + log + " resumed after " + LogPosition.toString(after) + " of " + h);
      }
    }
    assertNull(RecoveryModel.checkFeed(h, ordered, mayLackRecord, feed), when + " of " + h);
  }

  /** The commit ids of every log's records, from the start. */
  private static Map<String, List<Integer>> feed(RecoveryHistory h, CommitlaneDatabase db, Path dir, boolean throughFeed) {
    Map<String, List<Integer>> feed = new HashMap<>();
    for (String log : h.logNames()) {
      feed.put(log, records(db, dir, log, ReadRequest.fromStart(), throughFeed).stream().map(r -> (int) r[1]).toList());
    }
    return feed;
  }

  /** {@code log}'s records from {@code from} on, as (position, commit id); none for a log never used. */
  private static List<long[]> records(CommitlaneDatabase db, Path dir, String log, ReadRequest from, boolean throughFeed) {
    if (!Files.isDirectory(dir.resolve("txlog").resolve(log))) {
      return List.of(); // opening it to read would create it
    }
    if (throughFeed) {
      return ChangeFeed.current(db, log, from).map(r -> new long[] {r.position(), id(r)})
          .runWith(Sink.seq(), system).toCompletableFuture().join();
    }
    List<long[]> out = new ArrayList<>();
    try (LogReader reader = db.transactionLog(log).reader(from)) {
      for (LogRecord r = reader.next(); r != null; r = reader.next()) {
        out.add(new long[] {r.position(), id(r)});
      }
    }
    return out;
  }

  private static long id(LogRecord r) {
    return Integer.parseInt(StandardCharsets.UTF_8.decode(r.entries().get(0).duplicate()).toString());
  }

  private static PipelineSettings fsyncSettings(boolean walOn, String append) {
    Map<String, Object> m = Map.of("wal", walOn ? "on" : "off", "commit-threads", 1, "txlog.append", append,
        "txlog.durability", "fsync");
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane")
        .withFallback(system.settings().config()));
  }

  private static final List<String> PIPELINE_MODES = List.of("threads", "two-lane");
  private static final List<String> APPEND_MODES = List.of("serialized", "leaderless", "actor");

  /** The default pipeline, and the two-lane one (log appends and RocksDB writes on different threads). */
  @Provide
  Arbitrary<String> pipelineModes() {
    return Arbitraries.of(PIPELINE_MODES);
  }

  @Provide
  Arbitrary<String> appendModes() {
    return Arbitraries.of(APPEND_MODES);
  }

  private static String configuration(boolean walOn, String append, int commitThreads, String mode) {
    return "WAL " + (walOn ? "on" : "off") + ", " + append + ", " + commitThreads + " commit thread(s), " + mode;
  }

  /** Which of {@link #STEP_KINDS} {@code h} holds. */
  private static List<String> stepKinds(RecoveryHistory h) {
    List<String> kinds = new ArrayList<>();
    if (h.steps().stream().anyMatch(s -> s instanceof Reopen)) {
      kinds.add("a clean reopen");
    }
    if (h.steps().stream().anyMatch(s -> s instanceof RecoveryHistory.Flush)) {
      kinds.add("a flush");
    }
    if (h.steps().stream().anyMatch(s -> s instanceof RecoveryHistory.PlainWrite)) {
      kinds.add("a plain write");
    }
    if (h.steps().stream().anyMatch(s -> s instanceof RecoveryHistory.Burst b && b.commits().size() > 1)) {
      kinds.add("a merged write group");
    }
    kinds.add(h.logs() == 1 ? "one log" : "several logs");
    return kinds;
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
