package io.commitlane.testkit.pekko;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.testkit.RecoveryHistory;
import io.commitlane.testkit.CrashWorkload;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.testkit.RecoveryHistory.Commit;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Runs the {@link RecoveryHistory} of a seed in a JVM that the harness kills: {@code ACK id} for
 * each commit that succeeded, {@code AT failed:id} for each that failed, {@code AT durable:n} when
 * a flush or reopen made the first n steps durable, and {@code AT done} at the end (it then waits
 * to be killed). Args: {@code seed=N wal=on|off append=serialized|leaderless|actor}, optionally
 * {@code mode=threads|two-lane} (default threads).
 */
public final class RecoveryCrashWorkload implements CrashWorkload {
  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    Map<String, String> opts = CrashWorkload.options(args);
    RecoveryHistory history = RecoveryHistory.generate(Long.parseLong(opts.get("seed")));
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "recovery-crash");
    PipelineSettings settings = settings(system, "on".equals(opts.get("wal")), opts.get("append"), 1,
        opts.getOrDefault("mode", "threads"));
    new RecoveryRunner(history, () -> Commitlane.get(system).open(dir, settings)).run(new RecoveryRunner.Listener() {
      @Override
      public void succeeded(Commit c) {
        reporter.acknowledged(Integer.toString(c.id()));
      }

      @Override
      public void failed(Commit c, Throwable cause) {
        reporter.reached("failed:" + c.id());
      }

      @Override
      public void durableThrough(int steps) {
        reporter.reached("durable:" + steps);
      }
    });
    reporter.reached("done");
    new CountDownLatch(1).await();
  }

  /** The settings the workload opens with (and a checker should reopen with). */
  public static PipelineSettings settings(ActorSystem<?> system, boolean walOn, String append, int commitThreads) {
    return settings(system, walOn, append, commitThreads, "threads");
  }

  /** {@link #settings(ActorSystem, boolean, String, int)} in pipeline {@code mode} ("threads", "two-lane"). */
  public static PipelineSettings settings(ActorSystem<?> system, boolean walOn, String append, int commitThreads,
      String mode) {
    Map<String, Object> m = Map.of("wal", walOn ? "on" : "off", "commit-threads", commitThreads,
        "txlog.append", append, "txlog.durability", "process", "mode", mode);
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane").withFallback(system.settings().config()));
  }
}
