package io.commitlane.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.WriteStall;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommitlaneMetricsTest {
  private static ActorTestKit testKit;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void countersGaugesTimersAndLogMetersFollowTheDatabase() throws Exception {
    Path path = dir.resolve("orders");
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(path)) {
      MeterRegistry registry = new SimpleMeterRegistry();
      new CommitlaneMetrics(db, "orders", Duration.ZERO).bindTo(registry);
      for (int i = 0; i < 5; i++) {
        Transaction t = db.begin().useLog("audit").put(b("k" + i), b("v"));
        t.addLogEntry(b("e" + i));
        db.commit(t).toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      // A read-modify-write overtaken by another write of the key conflicts.
      Transaction stale = db.begin();
      stale.get(b("k0"));
      stale.put(b("k0"), b("stale"));
      db.commit(db.begin().put(b("k0"), b("newer"))).toCompletableFuture().get(10, TimeUnit.SECONDS);
      CompletionException e = assertThrows(CompletionException.class, () -> db.commit(stale).toCompletableFuture().join());
      assertTrue(e.getCause() instanceof ConflictException, e.toString());
      System.gc(); // nothing here holds the binder: the meters must keep reading the database all the same

      assertEquals(6, registry.get("commitlane.commits").tags("db", "orders", "outcome", "committed").functionCounter().count());
      assertEquals(1, registry.get("commitlane.commits").tags("outcome", "conflicted").functionCounter().count());
      assertEquals(0, registry.get("commitlane.commits").tags("outcome", "overloaded").functionCounter().count());
      assertEquals(7, registry.get("commitlane.commits.admitted").functionCounter().count());
      FunctionTimer wait = registry.get("commitlane.commit.queue.wait").functionTimer();
      assertEquals(7, wait.count());
      assertTrue(wait.totalTime(TimeUnit.NANOSECONDS) > 0);
      FunctionTimer execution = registry.get("commitlane.commit.execution").functionTimer();
      assertEquals(7, execution.count(), "timer counts accumulate across snapshots");
      assertEquals(0, registry.get("commitlane.queue.depth").gauge().value());
      assertTrue(registry.get("commitlane.executors").tags("state", "started").gauge().value() >= 1);
      assertEquals(5, registry.get("commitlane.txlog.records").tags("log", "audit").functionCounter().count(),
          "a log created after binding gets its meters");
      assertEquals(1, registry.get("commitlane.txlog.segments").tags("log", "audit").gauge().value());
      assertTrue(registry.get("commitlane.validation.bytes").gauge().value() > 0);
      assertTrue(registry.get("commitlane.commit.execution.percentile").tags("phi", "0.99").timeGauge()
          .value(TimeUnit.NANOSECONDS) >= 0);
    }
  }

  @Test
  void oneBinderBindsOnce() throws Exception {
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir.resolve("db"))) {
      CommitlaneMetrics metrics = new CommitlaneMetrics(db);
      metrics.bindTo(new SimpleMeterRegistry());
      assertThrows(IllegalStateException.class, () -> metrics.bindTo(new SimpleMeterRegistry()));
    }
  }

  @Test
  void rocksDbHealthAndPropertiesAreGaugesWithUnits() throws Exception {
    Path path = dir.resolve("stock");
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(path)) {
      MeterRegistry registry = new SimpleMeterRegistry();
      new CommitlaneMetrics(db, "stock", Duration.ZERO).bindTo(registry);
      for (int i = 0; i < 50; i++) {
        byte[] value = new byte[1000];
        new java.util.Random(i).nextBytes(value); // random: compression keeps the size
        db.commit(db.begin().put(b("k" + i), value)).toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      assertTrue(registry.get("commitlane.rocksdb.memtable.size").gauge().value() > 50_000, "the commits are in the memtable");
      db.storage().flush();
      for (int i = 0; i < 50; i++) {
        db.storage().get(b("k" + i)); // from the SST file, through the block cache
      }
      assertEquals(0.0, registry.get("commitlane.health").tag("db", "stock").gauge().value(), "OK");
      assertTrue(registry.get("commitlane.rocksdb.sst.live.size").gauge().value() > 50_000, "flushed into an SST file");
      assertEquals("bytes", registry.get("commitlane.rocksdb.sst.live.size").gauge().getId().getBaseUnit());
      assertTrue(registry.get("commitlane.rocksdb.block.cache.usage").gauge().value() > 0);
      double hitRatio = registry.get("commitlane.rocksdb.block.cache.hit.ratio").gauge().value();
      assertTrue(hitRatio >= 0 && hitRatio <= 1, "hit ratio " + hitRatio);
      assertEquals(0.0, registry.get("commitlane.rocksdb.write.stopped").gauge().value());
      assertTrue(registry.get("commitlane.rocksdb.compaction.pending").gauge().value() >= 0);
      assertTrue(registry.get("commitlane.rocksdb.write.stall").functionCounter().count() >= 0);
      assertEquals("seconds", registry.get("commitlane.rocksdb.write.stall").functionCounter().getId().getBaseUnit());
      assertTrue(registry.get("commitlane.rocksdb.flushes.running").gauge().value() >= 0);
      assertTrue(registry.get("commitlane.rocksdb.compactions.running").gauge().value() >= 0);
      assertTrue(registry.get("commitlane.rocksdb.level0.files").gauge().value() >= 1, "the flush made a level-0 file");
      assertTrue(registry.get("commitlane.rocksdb.table.readers.size").gauge().value() > 0, "its index is held");
      assertTrue(registry.get("commitlane.health").gauge().getId().getDescription().contains("DEGRADED"));
    }
  }

  /** A damaged table file that a compaction reads: RocksDB stops writes for good, and the gauge reads 2 (FAILED). */
  @Test
  void theHealthGaugeReadsFailedAfterADamagedTableFileFailsACompaction() throws Exception {
    Path path = dir.resolve("damaged");
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(path)) {
      MeterRegistry registry = new SimpleMeterRegistry();
      new CommitlaneMetrics(db, "damaged", Duration.ZERO).bindTo(registry);
      for (int i = 0; i < 100; i++) {
        db.storage().put(b("k" + i), b("old" + i));
      }
      db.storage().flush();
      java.util.List<Path> overwritten;
      try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(path)) {
        overwritten = files.filter(f -> f.toString().endsWith(".sst")).toList();
      }
      for (int i = 0; i < 100; i++) {
        db.storage().put(b("k" + i), b("new" + i));
      }
      db.storage().flush();
      assertEquals(0.0, registry.get("commitlane.health").tag("db", "damaged").gauge().value(), "OK");
      for (Path table : overwritten) {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(table, java.nio.file.StandardOpenOption.WRITE)) {
          ch.write(java.nio.ByteBuffer.wrap(new byte[16]), 20); // inside the first data block
        }
      }
      assertThrows(CompletionException.class,
          () -> db.compactAsync(io.commitlane.storage.KeyRange.all(), true).toCompletableFuture().join());
      assertEquals(2.0, registry.get("commitlane.health").tag("db", "damaged").gauge().value(), "FAILED");
    }
  }

  @Test
  void theStallMetersReadASlowdownAndAStopWhileTheyLast() throws Exception {
    // One executor; 64 KiB memtables, 4 of them: with flushes paused, each 80 KiB commit fills one, RocksDB slows
    // writes while 3 wait for their flush and stops them with 4.
    Config config = ConfigFactory.parseString("commitlane { commit-threads = 1, commit-queue-capacity = 4,"
        + " rocksdb { write-buffer-size = 64 KiB, max-write-buffers = 4 } }").withFallback(testKit.system().settings().config());
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir.resolve("stalled"), config);
    MeterRegistry registry = new SimpleMeterRegistry();
    new CommitlaneMetrics(db, "stalled", Duration.ZERO).bindTo(registry);
    List<CompletableFuture<?>> admitted = new ArrayList<>();
    try (WriteStall stall = WriteStall.force(db.storage())) {
      for (int i = 0; !stall.writesDelayed(); i++) {
        assertTrue(i < 4, () -> "RocksDB should slow writes by the fourth: " + stall.stats());
        db.commit(db.begin().put(b("big" + i), new byte[80 * 1024])).toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      assertTrue(registry.get("commitlane.rocksdb.write.delayed.rate").gauge().value() > 0, "slowed");
      assertTrue(registry.get("commitlane.rocksdb.write.stall").functionCounter().count() > 0, "a delayed write waited");
      assertEquals(0.0, registry.get("commitlane.rocksdb.write.stopped").gauge().value());

      admitted.add(db.commit(db.begin().put(b("stopped"), new byte[80 * 1024])).toCompletableFuture());
      stall.awaitWritesStopped(Duration.ofSeconds(30)); // the only executor is inside that write now
      for (int i = 0; i < 5; i++) {
        admitted.add(db.commit(db.begin().put(b("queued" + i), b("v"))).toCompletableFuture());
      }
      assertEquals(1.0, registry.get("commitlane.rocksdb.write.stopped").gauge().value(), "stopped");
      assertEquals(0.0, registry.get("commitlane.rocksdb.write.delayed.rate").gauge().value(), "stopped, not slowed");
      assertEquals(4.0, registry.get("commitlane.queue.depth").gauge().value(), "the queue is full");
      assertEquals(1, registry.get("commitlane.commits").tags("outcome", "overloaded").functionCounter().count());
      assertEquals(5.0, registry.get("commitlane.commits.in.flight").gauge().value());
    }
    CompletionException refused = assertThrows(CompletionException.class, () -> admitted.remove(admitted.size() - 1).join());
    assertTrue(refused.getCause() instanceof io.commitlane.actors.CommitQueueFullException, refused.toString());
    for (CompletableFuture<?> c : admitted) {
      c.get(30, TimeUnit.SECONDS);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (registry.get("commitlane.rocksdb.write.stopped").gauge().value() != 0
        || registry.get("commitlane.rocksdb.write.delayed.rate").gauge().value() != 0) {
      assertTrue(System.nanoTime() < deadline, "the flushes should end the stall");
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    assertEquals(0.0, registry.get("commitlane.queue.depth").gauge().value());
    db.close();
  }
}
