package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.RestoreOptions;
import io.commitlane.storage.Transaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Backups taken while commits run restore to what the model allows: RocksDB's captured data is a
 * prefix of commit order holding every commit acknowledged before the backup started, and the
 * logs add the logged commits that followed it, in commit order (an unlogged commit that ran
 * during the backup may be absent although a later logged one is there: it was not in the data
 * and no log holds it). Random histories of puts and removes over a few keys, through two logs
 * and none, with flushes, the WAL on and off and every append mode; backups start at random
 * points with commits in flight and more dispatched while they run. One commit thread, so commit
 * order is dispatch order.
 */
class BackupModelProperties {
  private static final int KEYS = 6;
  private static ActorSystem<Void> system;

  @BeforeContainer
  static void start() {
    system = ActorSystem.create(Behaviors.empty(), "backup-model");
  }

  @AfterContainer
  static void stop() {
    system.terminate();
  }

  private record Op(String key, String value, boolean logged) {}

  private record Backup(int dispatchedBefore, int acknowledgedBefore, CompletableFuture<BackupInfo> info) {}

  @Property(tries = 50, seed = "20261205")
  void aRestoredBackupIsAPrefixHoldingEveryCommitAcknowledgedBeforeIt(@ForAll long seed, @ForAll boolean walOn,
      @ForAll("appendModes") String append) throws Exception {
    Random random = new Random(seed);
    Path dir = Files.createTempDirectory(RecoveryModelProperties.scratch(), "backup-model");
    try {
      int commits = 10 + random.nextInt(30);
      TreeSet<Integer> backupPoints = new TreeSet<>();
      for (int b = 1 + random.nextInt(3); b > 0; b--) {
        backupPoints.add(random.nextInt(commits + 1));
      }
      // states.get(m): the model after the first m commits
      List<Map<String, String>> states = new ArrayList<>();
      states.add(new TreeMap<>());
      List<CompletableFuture<CommitResult>> acks = new ArrayList<>();
      List<Op> ops = new ArrayList<>();
      List<Backup> backups = new ArrayList<>();
      BackupStore store = BackupStore.at(dir.resolve("backups"));
      CommitlaneDatabase db = Commitlane.get(system).open(dir.resolve("db"), settings(walOn, append));
      try {
        for (int i = 0; i <= commits; i++) {
          if (backupPoints.contains(i)) {
            if (!backups.isEmpty()) {
              backups.get(backups.size() - 1).info().get(60, TimeUnit.SECONDS); // one writer per backup directory
            }
            int acknowledged = 0;
            while (acknowledged < acks.size() && acks.get(acknowledged).isDone()) {
              acknowledged++; // completions follow dispatch order with one commit thread
            }
            backups.add(new Backup(i, acknowledged, db.backup(store)));
          }
          if (i == commits) {
            break;
          }
          if (random.nextInt(8) == 0) {
            db.storage().flush();
          }
          String key = "k" + random.nextInt(KEYS);
          String value = random.nextInt(5) == 0 ? null : "v" + i;
          String log = switch (random.nextInt(3)) {
            case 0 -> "alpha";
            case 1 -> "beta";
            default -> null;
          };
          Transaction t = db.begin();
          if (log != null) {
            t.useLog(log).addLogEntry(bytes(key));
          }
          if (value == null) {
            t.remove(bytes(key));
          } else {
            t.put(bytes(key), bytes(value));
          }
          acks.add(db.commit(t).toCompletableFuture());
          ops.add(new Op(key, value, log != null));
          Map<String, String> next = new TreeMap<>(states.get(states.size() - 1));
          if (value == null) {
            next.remove(key);
          } else {
            next.put(key, value);
          }
          states.add(next);
        }
        for (CompletableFuture<CommitResult> a : acks) {
          a.get(30, TimeUnit.SECONDS);
        }
        for (Backup b : backups) {
          b.info().get(60, TimeUnit.SECONDS);
        }
      } finally {
        db.close();
      }
      for (Backup b : backups) {
        BackupInfo info = b.info().get();
        store.verify(info.id(), false);
        Path restored = dir.resolve("restored-" + info.id());
        store.restore(info.id(), restored, RestoreOptions.defaults());
        Map<String, String> got;
        try (CommitlaneDatabase r = Commitlane.get(system).open(restored, settings(walOn, append))) {
          got = contents(r);
        }
        assertTrue(allowed(states, ops, b.acknowledgedBefore(), got), "backup " + info.id() + " started after "
            + b.dispatchedBefore() + " dispatched and " + b.acknowledgedBefore() + " acknowledged commits restored " + got
            + ", which is no data prefix from there on plus the logged commits after it; history " + ops);
      }
    } finally {
      deleteTree(dir);
    }
  }

  /** Whether {@code got} is the first d commits (d at least {@code acknowledged}) plus the logged ones of the next few. */
  private static boolean allowed(List<Map<String, String>> states, List<Op> ops, int acknowledged, Map<String, String> got) {
    for (int d = acknowledged; d < states.size(); d++) {
      Map<String, String> state = new TreeMap<>(states.get(d));
      if (state.equals(got)) {
        return true;
      }
      for (int m = d; m < ops.size(); m++) {
        Op op = ops.get(m);
        if (!op.logged()) {
          continue;
        }
        if (op.value() == null) {
          state.remove(op.key());
        } else {
          state.put(op.key(), op.value());
        }
        if (state.equals(got)) {
          return true;
        }
      }
    }
    return false;
  }

  @Provide
  Arbitrary<String> appendModes() {
    return Arbitraries.of("serialized", "leaderless", "actor");
  }

  private static Map<String, String> contents(CommitlaneDatabase db) {
    Map<String, String> out = new TreeMap<>();
    for (int k = 0; k < KEYS; k++) {
      byte[] v = db.storage().get(bytes("k" + k));
      if (v != null) {
        out.put("k" + k, new String(v, StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static PipelineSettings settings(boolean walOn, String append) {
    Map<String, Object> m = new HashMap<>();
    m.put("wal", walOn ? "on" : "off");
    m.put("commit-threads", 1);
    m.put("txlog.append", append);
    m.put("txlog.replay", "on");
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane").withFallback(system.settings().config()));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void deleteTree(Path root) throws IOException {
    try (var walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
