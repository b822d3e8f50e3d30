package io.commitlane.persistence.internal.plugin;

import io.commitlane.persistence.internal.journal.EventJournal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Where the plugins run by default: a shared pool of threads, so replays of different entities go on side by side
 * (one held up does not hold up the others), and the journal's Pekko settings that its commit-time writer check
 * makes safe.
 */
public class PluginDispatcherTest {
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

  private static Config config(Path db) {
    return ConfigFactory.parseString("commitlane-persistence.path = \"" + db.toString().replace("\\", "\\\\") + "\"\n"
        + "pekko.loglevel = WARNING").withFallback(ConfigFactory.load()).resolve();
  }

  @Test
  void aReplayHeldUpDoesNotHoldUpAnotherEntitysReplay() throws Exception {
    Config config = config(dir.resolve("db"));
    system = ActorSystem.create(Behaviors.empty(), "dispatcher", config);
    PluginSettings settings = PluginSettings.read(config, "commitlane-persistence.journal");
    PluginStores.Lease lease = PluginStores.get(system).acquire(settings).toCompletableFuture().get(30, TimeUnit.SECONDS);
    EventJournal journal = new EventJournal(lease.store(),
        new PayloadCodec((ExtendedActorSystem) Adapter.toClassic(system)), settings.pageSize());
    journal.write(List.of(write("a", 3), write("b", 3))).toCompletableFuture().get(30, TimeUnit.SECONDS);

    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch aStarted = new CountDownLatch(1);
    CompletableFuture<Void> a = journal.replay("a", 1, Long.MAX_VALUE, Long.MAX_VALUE, repr -> {
      aStarted.countDown();
      try {
        release.await(); // a slow consumer of a's events: its replay's thread is busy until released
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }).toCompletableFuture();
    try {
      assertTrue(aStarted.await(30, TimeUnit.SECONDS), "a's replay started");
      List<Long> b = new ArrayList<>();
      journal.replay("b", 1, Long.MAX_VALUE, Long.MAX_VALUE, repr -> b.add(repr.sequenceNr()))
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertEquals(List.of(1L, 2L, 3L), b, "b replayed in full while a's replay was still held");
      assertFalse(a.isDone(), "a's replay is still held");
    } finally {
      release.countDown();
    }
    a.get(30, TimeUnit.SECONDS);
    lease.release().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void theJournalAnswersEachActorDirectlyAndReplaysWithoutPekkosReplayFilter() {
    Config journal = ConfigFactory.load().getConfig("commitlane-persistence.journal");
    assertEquals("commitlane-persistence.dispatcher", journal.getString("plugin-dispatcher"));
    assertFalse(journal.getBoolean("write-response-global-order"),
        "a write's response waits for no other entity's write");
    assertEquals("off", journal.getString("replay-filter.mode"),
        "the journal refuses interleaved writers at commit, so replays have nothing for the filter to repair");
    assertEquals("Dispatcher", ConfigFactory.load().getString("commitlane-persistence.dispatcher.type"));
  }

  private static AtomicWrite write(String pid, int events) {
    List<PersistentRepr> reprs = new ArrayList<>();
    for (int i = 1; i <= events; i++) {
      reprs.add(PersistentRepr.apply(new byte[] {(byte) i}, i, pid, "", false, null, "writer-1"));
    }
    return new AtomicWrite(CollectionConverters.asScala(reprs).toList());
  }
}
