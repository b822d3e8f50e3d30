package io.commitlane.testkit;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.RestoreOptions;
import io.commitlane.storage.Transaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Takes backups of a database whose commits go on (WAL off, one logged transaction log), and waits
 * to be killed inside one. {@link #COMMITS} logged commits ({@code k/i = i}) are acknowledged, then
 * backup 1 completes (marker {@code FIRST_DONE}), then {@link #COMMITS} more ({@code k/i = i},
 * {@code i} from {@link #COMMITS}). Args: {@code at=}
 * <ul>
 *   <li>{@code backup}: a second backup is held when it starts checksumming, after RocksDB's
 *       files and the logs were copied (marker {@code IN_BACKUP});
 *   <li>{@code restore}: backup 1 is restored into {@code <dir>/restored}, held once RocksDB's
 *       files are staged (marker {@code IN_RESTORE}).
 * </ul>
 * The database is {@code <dir>/db}, the backups {@code <dir>/backups}.
 */
public final class BackupWorkload implements CrashWorkload {
  static final int COMMITS = 30;
  static final String LOG = "main";

  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    String at = args.get(0).substring("at=".length());
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "backup-workload");
    CommitlaneDatabase db = Commitlane.get(system).open(dir.resolve("db"), settings(system));
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    commit(db, 0, COMMITS, reporter);
    db.backup(store).get(60, TimeUnit.SECONDS);
    reporter.reached("FIRST_DONE");
    commit(db, COMMITS, 2 * COMMITS, reporter);
    if (at.equals("backup")) {
      db.backup(store, (phase, done, total) -> {
        if (phase.equals("checksums")) {
          reporter.reached("IN_BACKUP");
          while (true) {
            LockSupport.park(); // until killed
          }
        }
      });
    } else {
      store.restore(1, dir.resolve("restored"), RestoreOptions.defaults(), (phase, done, total) -> {
        if (phase.equals("restore") && done > 0) {
          reporter.reached("IN_RESTORE");
          while (true) {
            LockSupport.park();
          }
        }
      });
    }
    while (true) {
      LockSupport.park();
    }
  }

  private static void commit(CommitlaneDatabase db, int from, int to, Reporter reporter) throws Exception {
    for (int i = from; i < to; i++) {
      Transaction t = db.begin().useLog(LOG);
      t.put(bytes("k/" + i), bytes(Integer.toString(i)));
      t.addLogEntry(bytes("e" + i));
      db.commit(t).toCompletableFuture().get(30, TimeUnit.SECONDS);
      reporter.acknowledged(Integer.toString(i));
    }
  }

  static PipelineSettings settings(ActorSystem<?> system) {
    Map<String, Object> m = Map.of("wal", "off", "commit-threads", 1, "txlog.durability", "process", "txlog.replay", "on");
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane").withFallback(system.settings().config()));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
