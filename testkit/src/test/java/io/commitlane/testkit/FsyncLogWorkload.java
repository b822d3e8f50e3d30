package io.commitlane.testkit;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * {@link LoggedCommitsWorkload}'s commits (same keys and values, WAL off, replay on) with the
 * transaction log at fsync durability and 4 KiB segments and buffers, so buffer writes, forces and
 * segment switches happen all the time. Args: {@code append=leaderless|actor} (default
 * leaderless); {@code hold=KIND:n} parks the n-th such operation of the log and reports marker
 * {@code KIND-n}, and the parent kills the process there. Kinds: {@code sync} (a write or fsync:
 * a leaderless sync in progress, its buffer swapped but its bytes not yet in the file or not yet
 * forced), {@code write} (a write: an actor-written batch half on its way to the file), {@code
 * force} (an fsync: a batch written, not yet durable, its commits not acknowledged), {@code switch}
 * (a segment creation: appends claimed in the new segment, the full one not yet sealed).
 */
public final class FsyncLogWorkload implements CrashWorkload {

  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    Map<String, String> opts = CrashWorkload.options(args);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    if (opts.containsKey("hold")) {
      String[] hold = opts.get("hold").split(":");
      long nth = Long.parseLong(hold[1]);
      AtomicLong count = new AtomicLong();
      Runnable park = () -> {
        if (count.incrementAndGet() == nth) {
          reporter.reached(hold[0] + "-" + nth);
          awaitForever();
        }
      };
      switch (hold[0]) {
        case "sync" -> {
          fs.beforeWrite(park);
          fs.beforeForce(park);
        }
        case "write" -> fs.beforeWrite(park);
        case "force" -> fs.beforeForce(park);
        case "switch" -> fs.beforeCreate(park);
        default -> throw new IllegalArgumentException("hold=" + opts.get("hold"));
      }
    }
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "fsync-log-crash-workload");
    PipelineSettings base = settings(system, opts.getOrDefault("append", "leaderless"));
    PipelineSettings settings = base.withLog(base.log().withFileSystem(fs));
    CommitlaneDatabase db = Commitlane.get(system).open(dir, settings);
    Semaphore inFlight = new Semaphore(8);
    for (long i = 1; ; i++) {
      inFlight.acquire();
      Transaction t = db.begin().useLog("main");
      LoggedCommitsWorkload.writes(i).forEach((k, v) -> t.put(LoggedCommitsWorkload.bytes(k), LoggedCommitsWorkload.bytes(v)));
      t.addLogEntry(LoggedCommitsWorkload.bytes(Long.toString(i)));
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

  /** WAL off, fsync durability, appends in {@code append} mode, small segments and buffers. */
  static PipelineSettings settings(ActorSystem<?> system, String append) {
    Map<String, Object> m = Map.of("wal", "off", "commit-threads", 2, "txlog.durability", "fsync", "txlog.replay", "on",
        "txlog.append", append, "txlog.max-segment-size", "4 KiB", "txlog.append-buffer-size", "4 KiB");
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane").withFallback(system.settings().config()));
  }

  private static void awaitForever() {
    try {
      new CountDownLatch(1).await(); // the parent kills the process here
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
