package io.commitlane.persistence.internal.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.plugin.PluginSettings;
import io.commitlane.persistence.internal.plugin.PluginStores;
import io.commitlane.persistence.internal.store.ForwardingPluginStore;
import io.commitlane.persistence.internal.store.PluginStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.Tagged;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Replay over several pages (page size 4 here), each read while the one before it is handed over: every event once, in
 * order, with what was written (payload, serializer, manifests, writer, timestamp, metadata), and from, to and max
 * honoured wherever they fall against the pages.
 */
class EventJournalReplayTest {
  private static final int EVENTS = 13;

  @TempDir
  Path dir;
  private ActorSystem<Void> system;
  private PluginStores.Lease lease;
  private EventJournal journal;

  @BeforeEach
  void start() throws Exception {
    Config config = ConfigFactory.parseString("commitlane-persistence.path = \"" + dir.resolve("db").toString().replace("\\", "\\\\")
        + "\"\ncommitlane-persistence.page-size = 4\npekko.loglevel = WARNING").withFallback(ConfigFactory.load()).resolve();
    system = ActorSystem.create(Behaviors.empty(), "replay", config);
    PluginSettings settings = PluginSettings.read(config, "commitlane-persistence.journal");
    assertEquals(4, settings.pageSize());
    lease = PluginStores.get(system).acquire(settings).toCompletableFuture().get(30, TimeUnit.SECONDS);
    journal = new EventJournal(lease.store(), new PayloadCodec((ExtendedActorSystem) Adapter.toClassic(system)), settings.pageSize());
    // three atomic writes (5 + 1 + 7 events): pages and writes do not line up
    List<Optional<Exception>> results = journal.write(List.of(write(1, 5), write(6, 6), write(7, EVENTS)))
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertEquals(List.of(Optional.empty(), Optional.empty(), Optional.empty()), results);
  }

  @AfterEach
  void stop() throws Exception {
    if (lease != null) {
      lease.release().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static PersistentRepr written(long seq) {
    Object payload = seq % 3 == 0 ? "event " + seq : new byte[] {(byte) seq, 7};
    PersistentRepr repr = PersistentRepr.apply(payload, seq, "p", seq % 2 == 0 ? "adapter-" + seq : "", false, null,
        seq < 7 ? "writer-1" : "writer-2").withTimestamp(1_000_000 + seq);
    return seq % 4 == 0 ? repr.withMetadata("meta " + seq) : repr;
  }

  private static AtomicWrite write(long first, long last) {
    List<PersistentRepr> reprs = new ArrayList<>();
    for (long seq = first; seq <= last; seq++) {
      PersistentRepr r = written(seq);
      // a tag is stored apart from the payload: the replayed payload is the event itself
      reprs.add(seq == 5 ? r.withPayload(new Tagged(r.payload(), CollectionConverters.asScala(java.util.Set.of("t")).toSet())) : r);
    }
    return new AtomicWrite(CollectionConverters.asScala(reprs).toList());
  }

  private List<PersistentRepr> replay(long from, long to, long max) throws Exception {
    List<PersistentRepr> out = new ArrayList<>();
    journal.replay("p", from, to, max, out::add).toCompletableFuture().get(30, TimeUnit.SECONDS);
    return out;
  }

  private static void assertReplayed(long first, long last, List<PersistentRepr> replayed) {
    assertEquals(LongStream.rangeClosed(first, last).boxed().toList(), replayed.stream().map(PersistentRepr::sequenceNr).toList());
    for (PersistentRepr r : replayed) {
      PersistentRepr w = written(r.sequenceNr());
      if (w.payload() instanceof byte[] bytes) {
        assertArrayEquals(bytes, (byte[]) r.payload(), "payload of " + r.sequenceNr());
      } else {
        assertEquals(w.payload(), r.payload(), "payload of " + r.sequenceNr());
      }
      assertEquals("p", r.persistenceId());
      assertEquals(w.manifest(), r.manifest(), "adapter manifest of " + r.sequenceNr());
      assertEquals(w.writerUuid(), r.writerUuid(), "writer of " + r.sequenceNr());
      assertEquals(w.timestamp(), r.timestamp(), "timestamp of " + r.sequenceNr());
      assertEquals(w.metadata(), r.metadata(), "metadata of " + r.sequenceNr());
    }
  }

  @Test
  void everyEventOnceInOrderWithWhatWasWritten() throws Exception {
    assertReplayed(1, EVENTS, replay(1, Long.MAX_VALUE, Long.MAX_VALUE));
    assertReplayed(1, EVENTS, replay(0, EVENTS, Long.MAX_VALUE));
  }

  @Test
  void fromToAndMaxWhereverTheyFallAgainstThePages() throws Exception {
    assertReplayed(3, 9, replay(3, 9, Long.MAX_VALUE));   // across pages, ending inside one
    assertReplayed(5, 8, replay(5, 8, Long.MAX_VALUE));   // exactly one full page, to at its end
    assertReplayed(2, 9, replay(2, Long.MAX_VALUE, 8));   // max of exactly two pages
    assertReplayed(2, 7, replay(2, 11, 6));               // max inside the second page
    assertReplayed(1, 4, replay(1, Long.MAX_VALUE, 4));   // max of one page: no second read
    assertReplayed(12, EVENTS, replay(12, 100, Long.MAX_VALUE));
    assertEquals(List.of(), replay(1, Long.MAX_VALUE, 0));
    assertEquals(List.of(), replay(EVENTS + 1, Long.MAX_VALUE, Long.MAX_VALUE));
    assertEquals(List.of(), replay(9, 8, Long.MAX_VALUE));
  }
  /**
   * The events go to Pekko on the plugin dispatcher, never on the thread that asked for the replay (the journal actor's):
   * here each of the store's tasks runs on a thread of its own and has finished before the executor returns, so the
   * first page is read before {@code replay} can attach its hand-over, the order in which a fast read and a slow caller
   * would otherwise meet by chance.
   */
  @Test
  void eventsAreHandedOverOffTheCallersThreadThoughThePageWasReadBeforeReplayReturned() throws Exception {
    PluginStore store = lease.store();
    Executor finishedBeforeReturning = task -> {
      Thread t = new Thread(task, "store-task");
      t.start();
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    };
    PluginStore readFirst = new ForwardingPluginStore(store) {
      @Override
      public Executor executor() {
        return finishedBeforeReturning;
      }
    };
    EventJournal onReadFirst = new EventJournal(readFirst, new PayloadCodec((ExtendedActorSystem) Adapter.toClassic(system)), 4);
    Thread caller = Thread.currentThread();
    List<PersistentRepr> out = new ArrayList<>();
    List<String> onCaller = new ArrayList<>();
    onReadFirst.replay("p", 1, Long.MAX_VALUE, Long.MAX_VALUE, r -> {
      out.add(r);
      if (Thread.currentThread() == caller) {
        onCaller.add("event " + r.sequenceNr());
      }
    }).toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertReplayed(1, EVENTS, out);
    assertEquals(List.of(), onCaller, "events handed over on the thread that asked for the replay");
  }
}
