package io.commitlane.testkit;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.projection.LocalProjection;
import io.commitlane.actors.projection.Projection;
import io.commitlane.actors.projection.ProjectionHandler;
import io.commitlane.actors.projection.ProjectionSettings;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.LogRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Orders committed to log "orders" (one entry each, naming one of 13 keys) while the projection
 * "counts" counts them per key in store "model", in batches of at most 7; reports {@code n} when
 * order n's commit is acknowledged, and flushes RocksDB every 100 orders (so that with the WAL off
 * some of the projection's commits are durable and others are not when the kill lands).
 *
 * <p>Args: {@code wal=on|off}, {@code append=serialized|leaderless|actor}, {@code run=<id>} (order
 * keys of this run), and optionally {@code hold=STAGE:n}: the projection's n-th commit of this run
 * stops at STAGE, reports the marker {@code projection-STAGE:n} and waits there for the kill.
 */
public final class ProjectionWorkload implements CrashWorkload {
  static final String LOG = "orders";
  static final int KEYS = 13;

  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    Map<String, String> opts = CrashWorkload.options(args);
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "projection-crash-workload");
    CommitlaneDatabase db = Commitlane.get(system).open(dir, settings(system, opts.get("wal"), opts.get("append")));
    db.createTransactionLog(LOG);
    if (opts.containsKey("hold")) {
      String[] hold = opts.get("hold").split(":");
      CommitStage stage = CommitStage.valueOf(hold[0]);
      int nth = Integer.parseInt(hold[1]);
      AtomicInteger seen = new AtomicInteger();
      db.storage().addStageListener((s, commit) -> {
        if (s == stage && "projection".equals(commit.tag()) && seen.incrementAndGet() == nth) {
          reporter.reached(marker(opts.get("hold")));
          while (true) {
            LockSupport.park(); // held until the harness kills the process
          }
        }
      });
    }
    projection(db).run(system);
    String run = opts.get("run");
    for (long n = 1; ; n++) {
      Transaction t = db.begin().useLog(LOG).addLogEntry(bytes("k" + (n % KEYS)));
      t.put(bytes("order/" + run + "/" + n), bytes("placed"));
      db.commit(t).toCompletableFuture().get(30, TimeUnit.SECONDS);
      reporter.acknowledged(Long.toString(n));
      if (n % 100 == 0) {
        db.storage().flush();
      }
    }
  }

  static String marker(String hold) {
    return "projection-" + hold;
  }

  /** The projection the workload runs and the test finishes: counts per key, its transactions tagged "projection". */
  static Projection<LogRecord, Transaction> projection(CommitlaneDatabase db) throws Exception {
    Store model = db.createStore("model").toCompletableFuture().get(30, TimeUnit.SECONDS);
    ProjectionHandler<LogRecord, Transaction> counting = (txn, records) -> {
      txn.tag("projection");
      for (LogRecord r : records) {
        byte[] key = key(r);
        byte[] v = txn.get(model, key);
        txn.put(model, key, bytes(Long.toString(v == null ? 1 : Long.parseLong(new String(v, StandardCharsets.UTF_8)) + 1)));
      }
    };
    return LocalProjection.of(db, "counts", LOG, counting).withSettings(ProjectionSettings.defaults().withMaxBatchRecords(7));
  }

  static byte[] key(LogRecord r) {
    byte[] key = new byte[r.entries().get(0).remaining()];
    r.entries().get(0).duplicate().get(key);
    return key;
  }

  static PipelineSettings settings(ActorSystem<?> system, String wal, String append) {
    Map<String, Object> m = Map.of("wal", wal, "commit-threads", 2, "txlog.replay", "on", "txlog.append", append);
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane").withFallback(system.settings().config()));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
