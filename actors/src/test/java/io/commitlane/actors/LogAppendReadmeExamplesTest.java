package io.commitlane.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.RocksDbWal;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leaderless-append snippets of docs/transaction-log.md and the RocksDB-WAL snippet of docs/storage.md, verbatim between the markers. */
class LogAppendReadmeExamplesTest {
  @TempDir
  Path dir;

  @Test
  void leaderlessAppendsThroughConfigAndDirectly() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "readme-leaderless");
    try {
      // README: leaderless-config
      Config config = ConfigFactory.parseString("""
          commitlane.wal = off
          commitlane.txlog { append = leaderless, durability = fsync }
          """).withFallback(system.settings().config());
      CommitlaneDatabase db = Commitlane.get(system).open(dir.resolve("db"), PipelineSettings.fromConfig(config));
      Transaction txn = db.begin().useLog("orders");
      txn.put("order-1".getBytes(StandardCharsets.UTF_8), "paid".getBytes(StandardCharsets.UTF_8));
      txn.addLogEntry("order-1 paid".getBytes(StandardCharsets.UTF_8));
      db.commit(txn).toCompletableFuture().get(10, TimeUnit.SECONDS);   // acknowledged after the fsync covering it
      db.close();
      // end README

      // README: leaderless-direct
      LogSettings settings = LogSettings.defaults().withAppendMode(AppendMode.LEADERLESS).withDurability(Durability.PROCESS);
      try (TransactionLog log = TransactionLog.open(dir.resolve("log"), settings)) {
        long position = log.append(7, System.currentTimeMillis(), List.of(), null);  // claim + copy, no I/O
        // ... the caller's RocksDB write ...
        log.finish(position, () -> 0L);   // writes the buffer out (collapsed with concurrent finishes), then publishes
        assertTrue(log.committedWatermark() > position);
      }
      // end README
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void rocksDbWalGroupSyncer() throws Exception {
    // README: rocksdb-wal
    RocksDbWal wal = new RocksDbWal(true, Duration.ofMillis(10), true, false, false, false); // manual flush, 10 ms syncs, ack after sync
    try (Database db = Database.open(dir.resolve("wal"), DatabaseOptions.defaults()
        .withSettings(CommitlaneSettings.defaults().withRocksDbWal(wal)))) {
      db.transact(t -> t.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)));  // returns after a group sync
      db.put("other".getBytes(StandardCharsets.UTF_8), "x".getBytes(StandardCharsets.UTF_8));  // non-transactional: covered by the period...
      db.syncWal().get(10, TimeUnit.SECONDS);                                                   // ...or on demand
    }
    // end README
    assertEquals(wal, new RocksDbWal(true, Duration.ofMillis(10), true, false, false, false));
  }
}
