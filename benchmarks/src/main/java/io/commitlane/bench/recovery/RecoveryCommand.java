package io.commitlane.bench.recovery;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.Main;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.DirOption;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.testkit.CrashHarness;
import io.commitlane.testkit.CrashRun;
import io.commitlane.testkit.RecoveryHistory;
import io.commitlane.testkit.RecoveryModel;
import io.commitlane.testkit.pekko.OpenFaults;
import io.commitlane.testkit.pekko.RecoveryCrashWorkload;
import io.commitlane.testkit.pekko.RecoveryRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The long run of the kill -9 recovery check: random histories (puts and removes over a small key
 * set, one to three logs, unlogged commits, plain writes, flushes, reopens, merged groups) run in
 * a forked JVM that is killed after a random number of acknowledgements; each reopened database
 * must hold what recovery promises after a crash: every acknowledged commit, in commit order (a
 * prefix of it, but for unlogged commits after the last flush with the WAL off). Between the kill
 * and that open, most runs add a fault to opening itself ({@link OpenFaults}: an open that fails
 * or halts part-way, a lost or damaged flushed-position file), in turn. The test suite runs a
 * dozen of these; this runs as many as asked.
 */
@Command(name = "recovery", mixinStandardHelpOptions = true,
    description = "Kill -9 random histories at random points and check every recovery against the model"
        + " (every acknowledged commit, in commit order: a prefix of it, but for unlogged commits after the last flush"
        + " with the WAL off), most of them after an open that failed or"
        + " halted part-way or a lost flushed-position file. Exit code 1 if any recovery went wrong.")
public final class RecoveryCommand implements Callable<Integer> {
  @Option(names = "--runs", defaultValue = "100", description = "Histories to run and kill (default: ${DEFAULT-VALUE})")
  int runs;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the first history; run i uses seed + i (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--wal", defaultValue = "both", description = "RocksDB WAL: on, off or both (alternating) (default: ${DEFAULT-VALUE})")
  String wal;

  @Option(names = "--append", defaultValue = "all",
      description = "Log append mode: serialized, leaderless, actor, both (serialized and leaderless alternating) or all "
          + "(the three in turn) (default: ${DEFAULT-VALUE})")
  String append;

  @Option(names = "--open-faults", defaultValue = "on",
      description = "Fault the first open after the kill (in turn: none, a failed or halted open, a lost or damaged"
          + " flushed-position file): on or off (default: ${DEFAULT-VALUE})")
  String openFaults;

  @Mixin
  DirOption dir = new DirOption();

  @Override
  public Integer call() throws Exception {
    Checks.oneOf("--wal", wal, List.of("on", "off", "both"));
    Checks.oneOf("--append", append, List.of("serialized", "leaderless", "actor", "both", "all"));
    Checks.positive("--runs", runs);
    Checks.oneOf("--open-faults", openFaults, List.of("on", "off"));
    Path root = dir.root("commitlane-recovery");
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "recovery-check");
    List<String> failures = new ArrayList<>();
    long acknowledged = 0;
    long started = System.nanoTime();
    try {
      for (int i = 0; i < runs; i++) {
        StopSignal.checkpoint();
        long s = seed + i;
        boolean walOn = wal.equals("both") ? i % 2 == 0 : wal.equals("on");
        String mode = switch (append) {
          case "both" -> i / 2 % 2 == 0 ? "serialized" : "leaderless";
          case "all" -> List.of("serialized", "leaderless", "actor").get(i / 2 % 3);
          default -> append;
        };
        Path runDir = Files.createDirectories(root.resolve("run-" + i));
        // Changes every six runs, so each fault meets every WAL setting and append mode in turn.
        OpenFaults fault = openFaults.equals("off") ? null : FAULTS.get(i / 6 % FAULTS.size());
        int at = 1 + new java.util.SplittableRandom(s).nextInt(4);
        String violation = runOnce(system, runDir, s, walOn, mode, fault, at);
        acknowledged += lastAcks;
        String line = "run " + (i + 1) + "/" + runs + ": seed " + s + ", wal " + (walOn ? "on" : "off") + ", " + mode
            + ", killed after " + lastAcks + " acknowledgements, open fault " + (fault == null ? "none" : fault + " at " + at)
            + (lastHalted ? " (halted)" : "") + ": " + (violation == null ? "ok" : "VIOLATION " + violation);
        System.out.println(line);
        if (violation != null) {
          failures.add(line);
        } else {
          ContentionRunner.deleteRecursively(runDir);
          if (Files.exists(halted(runDir))) {
            ContentionRunner.deleteRecursively(halted(runDir));
          }
        }
      }
    } finally {
      system.terminate();
      if (failures.isEmpty()) {
        dir.cleanUp(root);
      }
    }
    System.out.printf("%d runs, %d acknowledged commits checked, %d violations, %.0f s%n", runs, acknowledged,
        failures.size(), (System.nanoTime() - started) / 1e9);
    failures.forEach(f -> System.out.println("  " + f));
    if (!failures.isEmpty()) {
      System.out.println("the directories of the failed runs are kept under " + root);
    }
    return failures.isEmpty() ? 0 : Main.FAILED;
  }

  /** The faults in turn; null is a plain open. */
  private static final List<OpenFaults> FAULTS = new ArrayList<>();

  static {
    FAULTS.add(null);
    FAULTS.addAll(List.of(OpenFaults.values()));
  }

  private int lastAcks;
  private boolean lastHalted;

  /** Where a halted open leaves its copy of the run's database. */
  private static Path halted(Path runDir) {
    return runDir.resolveSibling(runDir.getFileName() + "-halted");
  }

  private String runOnce(ActorSystem<?> system, Path runDir, long s, boolean walOn, String mode, OpenFaults fault,
      int at) throws Exception {
    RecoveryHistory history = RecoveryHistory.generate(s);
    int commits = 0;
    for (var step : history.steps()) {
      commits += RecoveryModel.commitsOf(step).size();
    }
    int killAfter = 1 + new Random(s).nextInt(Math.max(1, commits));
    CrashRun run = CrashHarness.of(RecoveryCrashWorkload.class, runDir)
        .args("seed=" + s, "wal=" + (walOn ? "on" : "off"), "append=" + mode)
        .killAfterAcks(killAfter).timeout(Duration.ofSeconds(120)).run();
    lastAcks = run.acknowledged().size();
    if (!run.killed() && !run.markers().contains("done")) {
      return "the workload failed: " + run.stderr();
    }
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
    PipelineSettings settings = RecoveryCrashWorkload.settings(system, walOn, mode, 1);
    Path recover = fault == null ? runDir : fault.open(system, runDir, settings, at, halted(runDir));
    lastHalted = !recover.equals(runDir);
    try (CommitlaneDatabase db = Commitlane.get(system).open(recover, settings)) {
      Map<String, String> state = RecoveryModel.read(history,
          k -> RecoveryRunner.string(db.storage().get(RecoveryRunner.bytes(k))));
      return RecoveryModel.checkCrash(history, succeeded, failed, walOn, durable, state);
    }
  }
}
