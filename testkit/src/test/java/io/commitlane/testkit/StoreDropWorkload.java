package io.commitlane.testkit;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Drops a named store with the RocksDB WAL off and the transaction log replaying, and waits to be
 * killed at one point of the drop. First {@link #COMMITS} logged transactions are acknowledged,
 * each writing {@code i} into the default store (key {@code d/i}) and into store {@value #STORE}
 * (keys {@code s/i} and {@code shared}). Nothing is flushed, so after the kill every record is
 * replayed. Args: {@code at=}
 * <ul>
 *   <li>{@code before}: a commit to the store is held before its write; the kill comes before the
 *       drop is asked for (marker {@code BEFORE_DROP});
 *   <li>{@code logical}: the same held commit, then the drop: it is logical (its intent synced)
 *       and waits for the held commit's claim when the kill comes (marker {@code DROPPED_LOGICALLY});
 *   <li>{@code recreated}: the drop finishes, the name is created again, and {@link #COMMITS}
 *       more transactions write the new store ({@code n/i}, {@code shared = new-i}), all
 *       acknowledged (marker {@code RECREATED}).
 * </ul>
 * Acknowledged ids are {@code old-i} and {@code new-i}.
 */
public final class StoreDropWorkload implements CrashWorkload {
  static final String STORE = "doomed";
  static final String LOG = "main";
  static final int COMMITS = 40;

  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    String at = args.get(0).substring("at=".length());
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "store-drop-workload");
    CommitlaneDatabase db = Commitlane.get(system).open(dir, settings(system));
    Store store = db.createStore(STORE).toCompletableFuture().get(30, TimeUnit.SECONDS);
    commitAll(db, store, "old", "s/", reporter);

    if (at.equals("recreated")) {
      db.dropStore(STORE).toCompletableFuture().get(30, TimeUnit.SECONDS);
      Store again = db.createStore(STORE).toCompletableFuture().get(30, TimeUnit.SECONDS);
      commitAll(db, again, "new", "n/", reporter);
      reporter.reached("RECREATED");
    } else {
      CountDownLatch held = new CountDownLatch(1);
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.LOG_APPENDED && "held".equals(c.tag())) {
          held.countDown();
          while (true) {
            LockSupport.park(); // claims the store until the kill
          }
        }
      });
      Transaction t = db.begin().tag("held").useLog(LOG);
      t.put(store, bytes("s/held"), bytes("held"));
      t.addLogEntry(bytes("held"));
      db.commit(t);
      if (!held.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the held commit never reached LOG_APPENDED");
      }
      if (at.equals("before")) {
        reporter.reached("BEFORE_DROP");
      } else {
        db.dropStore(STORE); // returns once logical: intent synced, new claims refused
        reporter.reached("DROPPED_LOGICALLY");
      }
    }
    while (true) {
      LockSupport.park(); // until killed
    }
  }

  private static void commitAll(CommitlaneDatabase db, Store store, String generation, String prefix, Reporter reporter)
      throws Exception {
    for (int i = 0; i < COMMITS; i++) {
      Transaction t = db.begin().useLog(LOG);
      t.put(bytes("d/" + generation + "-" + i), bytes(Integer.toString(i)));
      t.put(store, bytes(prefix + i), bytes(Integer.toString(i)));
      t.put(store, bytes("shared"), bytes(generation + "-" + i));
      t.addLogEntry(bytes(generation + "-" + i));
      db.commit(t).toCompletableFuture().get(30, TimeUnit.SECONDS);
      reporter.acknowledged(generation + "-" + i);
    }
  }

  static PipelineSettings settings(ActorSystem<?> system) {
    Map<String, Object> m = Map.of("wal", "off", "commit-threads", 2, "txlog.durability", "process", "txlog.replay", "on");
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane").withFallback(system.settings().config()));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
