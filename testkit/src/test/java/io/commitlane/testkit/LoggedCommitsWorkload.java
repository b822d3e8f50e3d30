package io.commitlane.testkit;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Cursor;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.Transaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Commits numbered transactions forever (until killed) through the actor pipeline with the
 * RocksDB WAL off and the transaction log at "process" durability: transaction i writes
 * {@link #KEYS} unique keys {@code i/k = i} and one log entry, with 8 commits in flight, and
 * flushes RocksDB every 300 commits so replay starts from a recorded flushed position.
 * Args: {@code replay=on|off}, {@code append=serialized|leaderless|actor} (default serialized),
 * {@code mode=threads|two-lane} (default threads), optionally {@code hold=STAGE:n} to stop the n-th commit there, or
 * {@code burst=on}: one executor, commit 1 held at VALIDATED until commits 2..8 are queued, so
 * those 7 are written as one merged write group; once all 8 are acknowledged the workload reports
 * the marker {@link #BURST_ACKED} (with the group's size) and idles, to be killed before any flush.
 * With {@code scans=on}, every fourth transaction first scans (tracked) the keys of the one before
 * it, so scanning transactions are in the history: one whose scan a later commit overtook
 * conflicts and is simply not acknowledged.
 */
public final class LoggedCommitsWorkload implements CrashWorkload {
  static final int KEYS = 5;
  static final String BURST_ACKED = "burst-acknowledged";

  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    Map<String, String> opts = CrashWorkload.options(args);
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "crash-workload");
    boolean burst = "on".equals(opts.get("burst"));
    CommitlaneDatabase db = Commitlane.get(system).open(dir, settings(system, opts.getOrDefault("replay", "on"),
        burst ? 1 : 2, opts.getOrDefault("append", "serialized"), opts.getOrDefault("mode", "threads")));
    if (burst) {
      runBurst(db, reporter);
      return;
    }
    if (opts.containsKey("hold")) {
      String[] hold = opts.get("hold").split(":");
      CrashPoints.holdAt(db.storage(), CommitStage.valueOf(hold[0]), Integer.parseInt(hold[1]), reporter);
    }
    boolean scans = "on".equals(opts.get("scans"));
    Semaphore inFlight = new Semaphore(8);
    for (long i = 1; ; i++) {
      inFlight.acquire();
      Transaction t = db.begin().useLog("main");
      if (scans && i % 4 == 0) {
        try (Cursor previous = t.scan(KeyRange.prefix(bytes((i - 1) + "/")))) {
          previous.forEachRemaining(kv -> { });
        }
      }
      writes(i).forEach((k, v) -> t.put(bytes(k), bytes(v)));
      t.addLogEntry(bytes(Long.toString(i)));
      long id = i;
      db.commit(t).whenComplete((r, err) -> {
        if (err == null) {
          reporter.acknowledged(Long.toString(id));
        }
        inFlight.release();
      });
      if (i % 300 == 0) {
        db.storage().flush();
      }
    }
  }

  /** Commits 1..8, the last 7 merged into one group behind commit 1; then waits to be killed. */
  private static void runBurst(CommitlaneDatabase db, Reporter reporter) throws Exception {
    CountDownLatch oneHeld = new CountDownLatch(1);
    CountDownLatch queued = new CountDownLatch(7);
    db.storage().addStageListener((stage, c) -> {
      if (stage == CommitStage.ADMITTED && !"1".equals(c.tag())) {
        queued.countDown();
      } else if (stage == CommitStage.VALIDATED && "1".equals(c.tag())) {
        oneHeld.countDown();
        try {
          queued.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    CountDownLatch acked = new CountDownLatch(8);
    for (long i = 1; i <= 8; i++) {
      Transaction t = db.begin().useLog("main").tag(Long.toString(i));
      writes(i).forEach((k, v) -> t.put(bytes(k), bytes(v)));
      t.addLogEntry(bytes(Long.toString(i)));
      long id = i;
      db.commit(t).whenComplete((r, err) -> {
        if (err == null) {
          reporter.acknowledged(Long.toString(id));
          acked.countDown();
        }
      });
      if (i == 1) {
        oneHeld.await(); // commit 1 was taken alone; 2..8 queue up behind it
      }
    }
    acked.await();
    var storage = db.storage().stats();
    reporter.reached(BURST_ACKED + " groups=" + storage.groups() + " members=" + storage.groupMembers());
    new CountDownLatch(1).await(); // killed here: nothing was flushed, so recovery must replay the group
  }

  static PipelineSettings settings(ActorSystem<?> system, String replay) {
    return settings(system, replay, 2, "serialized");
  }

  static PipelineSettings settings(ActorSystem<?> system, String replay, int commitThreads, String append) {
    return settings(system, replay, commitThreads, append, "threads");
  }

  static PipelineSettings settings(ActorSystem<?> system, String replay, int commitThreads, String append, String mode) {
    Map<String, Object> m = Map.of("wal", "off", "commit-threads", commitThreads, "txlog.durability", "process",
        "txlog.replay", replay, "txlog.append", append, "mode", mode);
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane").withFallback(system.settings().config()));
  }

  /** The writes of transaction i. */
  static Map<String, String> writes(long i) {
    Map<String, String> w = new LinkedHashMap<>();
    for (int k = 0; k < KEYS; k++) {
      w.put(i + "/" + k, Long.toString(i));
    }
    return w;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
