package io.commitlane.persistence.internal.store;

import io.commitlane.persistence.internal.plugin.PluginSettings;
import io.commitlane.persistence.internal.plugin.PluginStores;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.testkit.WriteStall;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * More plugin writes at once than the database's commit queue holds: the ones that find it full wait for a place and
 * are committed, none fails (a failed journal write counts toward Pekko's circuit breaker, which then stops every
 * entity of the journal).
 */
public class CommitQueueFullTest {
  private static final int QUEUE = 8;
  private static final int WRITES = 200;

  @TempDir
  Path dir;
  private ActorSystem<Void> system;

  @AfterEach
  void stop() throws Exception {
    if (system != null) {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void writesThatFindTheCommitQueueFullWaitForAPlaceAndAreCommitted() throws Exception {
    Config config = ConfigFactory.parseString("""
        commitlane-persistence.path = "%s"
        commitlane { commit-queue-capacity = %d, rocksdb { write-buffer-size = 64 KiB, max-write-buffers = 2 } }
        pekko.loglevel = WARNING
        """.formatted(dir.resolve("db").toString().replace("\\", "\\\\"), QUEUE)).withFallback(ConfigFactory.load()).resolve();
    system = ActorSystem.create(Behaviors.empty(), "queue-full", config);
    PluginStores.Lease lease = PluginStores.get(system).acquire(PluginSettings.read(config, "commitlane-persistence.journal"))
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    LocalPluginStore store = (LocalPluginStore) lease.store();

    List<CompletableFuture<Void>> writes = new ArrayList<>();
    try (WriteStall stall = WriteStall.force(store.database().storage())) { // RocksDB stops writes: the queue fills
      for (int i = 0; !stall.writesStopped(); i++) {
        writes.add(write(store, i));
      }
      stall.awaitBlockedWriters(name -> name.startsWith("commitlane-commit-"), 1, Duration.ofSeconds(30));
      int stalled = writes.size();
      for (int i = stalled; i < stalled + WRITES; i++) {
        writes.add(write(store, i)); // far more than the queue's places while nothing leaves it
      }
      long failedEarly = writes.stream().filter(CompletableFuture::isCompletedExceptionally).count();
      assertEquals(0, failedEarly, "no write failed while the queue was full: they wait for a place");
    }
    for (CompletableFuture<Void> w : writes) {
      w.get(60, TimeUnit.SECONDS);
    }
    for (int i = 0; i < writes.size(); i++) {
      assertArrayEquals(value(i), store.get(key(i)), "write " + i + " is stored");
    }
    assertTrue(writes.size() > QUEUE + WRITES);
    lease.release().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static CompletableFuture<Void> write(PluginStore store, int i) {
    return store.write(new StoreWrite().put(key(i), value(i))).toCompletableFuture();
  }

  private static byte[] key(int i) {
    return ByteBuffer.allocate(9).put((byte) 'x').putLong(i).array();
  }

  private static byte[] value(int i) {
    byte[] v = new byte[4096];
    ByteBuffer.wrap(v).putInt(i);
    return v;
  }
}
