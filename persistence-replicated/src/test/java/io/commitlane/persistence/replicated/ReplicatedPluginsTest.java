package io.commitlane.persistence.replicated;

import io.commitlane.persistence.internal.query.Offsets;
import static io.commitlane.persistence.replicated.ReplicatedNodes.await;
import static io.commitlane.persistence.replicated.ReplicatedNodes.failure;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.persistence.RevisionConflictException;
import io.commitlane.persistence.WriterConflictException;
import io.commitlane.persistence.internal.store.ConditionFailedException;
import io.commitlane.persistence.internal.journal.EventJournal;
import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.store.StoreWrite;
import io.commitlane.persistence.javadsl.CommitlaneReadJournal;
import io.commitlane.persistence.internal.query.EventQueries;
import io.commitlane.persistence.internal.state.DurableStates;
import io.commitlane.persistence.internal.store.ForwardingPluginStore;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.replicated.internal.ReplicatedPluginStore;
import io.commitlane.replication.InvalidReplicaRequestException;
import io.commitlane.replication.ReplicatedDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.Tagged;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.state.DurableStateStoreRegistry;
import org.apache.pekko.persistence.state.javadsl.DurableStateUpdateStore;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The four plugins on a replicated database of three nodes in this JVM: every node writes through Raft and reads its
 * own replica; recovery on another node sees what one node wrote; a second writer of an id is refused in log order;
 * tag queries give the same events at the same offsets on every node, live ones pushed by what the replica applies.
 */
class ReplicatedPluginsTest {
  @TempDir static Path dir;
  private static ReplicatedNodes nodes;

  @BeforeAll
  static void start() {
    nodes = new ReplicatedNodes(dir);
  }

  @AfterAll
  static void stop() {
    if (nodes != null) {
      nodes.close();
    }
  }

  private static EventJournal journal(int node) {
    ActorSystem<Void> system = nodes.system(node);
    return new EventJournal(nodes.store(node), new PayloadCodec((ExtendedActorSystem) Adapter.toClassic(system)), 100);
  }

  private static AtomicWrite atomic(String pid, long first, String... payloads) {
    List<PersistentRepr> events = new ArrayList<>();
    for (int i = 0; i < payloads.length; i++) {
      events.add(PersistentRepr.apply(new Tagged(payloads[i], CollectionConverters.asScala(java.util.Set.of("t")).toSet()),
          first + i, pid, "", false, null, "writer-" + pid));
    }
    return new AtomicWrite(CollectionConverters.asScala(events).toList());
  }

  private static CommitlaneReadJournal queries(int node) {
    return PersistenceQuery.get(Adapter.toClassic(nodes.system(node)))
        .getReadJournalFor(CommitlaneReadJournal.class, CommitlaneReadJournal.IDENTIFIER);
  }

  private static List<EventEnvelope> currentByTag(int node, String tag, Offset from) {
    return await(queries(node).currentEventsByTag(tag, from).runWith(Sink.seq(), nodes.system(node)));
  }

  private static List<String> described(List<EventEnvelope> envelopes) {
    return envelopes.stream().map(e -> e.persistenceId() + "/" + e.sequenceNr() + "@" + e.offset() + "=" + e.event()).toList();
  }

  @Test
  void eventsPersistedOnOneNodeRecoverOnAnother() {
    TestProbe<Long> persisted = TestProbe.create(nodes.system(0));
    ActorRef<Recorder.Command> onA = nodes.kits.get(0).spawn(Recorder.create("moving"));
    for (String e : List.of("a", "b", "c")) {
      onA.tell(new Recorder.Record(e, persisted.ref()));
      persisted.receiveMessage(Duration.ofSeconds(30));
    }
    nodes.kits.get(0).stop(onA);
    // The entity moves to node 2: its recovery reads node 2's replica after a read barrier.
    TestProbe<List<String>> state = TestProbe.create(nodes.system(1));
    ActorRef<Recorder.Command> onB = nodes.kits.get(1).spawn(Recorder.create("moving"));
    onB.tell(new Recorder.Get(state.ref()));
    assertEquals(List.of("a", "b", "c"), state.receiveMessage(Duration.ofSeconds(30)));
    assertEquals(3L, await(journal(2).highestSequenceNr("moving")));
    TestProbe<Long> more = TestProbe.create(nodes.system(1));
    onB.tell(new Recorder.Record("d", more.ref()));
    assertEquals(4L, more.receiveMessage(Duration.ofSeconds(30)));
    List<String> replayed = new ArrayList<>();
    await(journal(2).highestSequenceNr("moving"));
    await(journal(2).replay("moving", 1, Long.MAX_VALUE, Long.MAX_VALUE, r -> replayed.add(r.sequenceNr() + ":" + r.payload())));
    assertEquals(List.of("1:a", "2:b", "3:c", "4:d"), replayed);
  }

  @Test
  void aSecondWriterOfAnIdOnAnotherNodeIsRefusedNeverInterleaved() {
    List<Optional<Exception>> first = await(journal(0).write(List.of(atomic("contested", 1, "x1", "x2"))));
    assertEquals(List.of(Optional.empty()), first);
    // A second incarnation on node 2 that recovered before those writes also starts at 1.
    Throwable refused = failure(journal(1).write(List.of(atomic("contested", 1, "y1"))));
    assertInstanceOf(WriterConflictException.class, refused);
    // The expectation is checked in log order at every replica, whatever the writer's node read.
    byte[] highest = highestKey("contested");
    Throwable stale = failure(nodes.store(2).write(new StoreWrite().expect(highest, null).put(highest, new byte[] {1})));
    assertInstanceOf(ConditionFailedException.class, stale);
    List<String> replayed = new ArrayList<>();
    await(journal(2).highestSequenceNr("contested"));
    await(journal(2).replay("contested", 1, Long.MAX_VALUE, Long.MAX_VALUE, r -> replayed.add(r.sequenceNr() + ":" + r.payload())));
    assertEquals(List.of("1:x1", "2:x2"), replayed);
  }

  /** The journal's {@code H} key of {@code pid} (kind, UTF-8 length, bytes). */
  private static byte[] highestKey(String pid) {
    byte[] name = pid.getBytes(StandardCharsets.UTF_8);
    return java.nio.ByteBuffer.allocate(5 + name.length).put((byte) 'H').putInt(name.length).put(name).array();
  }

  @Test
  void tagQueriesGiveTheSameEventsAtTheSameOffsetsOnEveryNodeAndResumeExactly() {
    // Writes from all three nodes, some concurrent, so their commits share entries.
    List<java.util.concurrent.CompletableFuture<?>> writes = new ArrayList<>();
    for (int node = 0; node < 3; node++) {
      for (int id = 0; id < 3; id++) {
        writes.add(journal(node).write(List.of(atomic("tagged-" + node + "-" + id, 1, "e1", "e2"))).toCompletableFuture());
      }
    }
    writes.forEach(ReplicatedNodes::await);
    List<EventEnvelope> onA = currentByTag(0, "t", Offset.noOffset());
    List<EventEnvelope> onB = currentByTag(1, "t", Offset.noOffset());
    List<EventEnvelope> onC = currentByTag(2, "t", Offset.noOffset());
    assertTrue(onA.size() >= 18, "every event is tagged t: " + onA.size());
    assertEquals(described(onA), described(onB));
    assertEquals(described(onA), described(onC));
    // Offsets increase in log order; each id's events keep their sequence order.
    for (int i = 1; i < onA.size(); i++) {
      long before = ((org.apache.pekko.persistence.query.Sequence) onA.get(i - 1).offset()).value();
      long after = ((org.apache.pekko.persistence.query.Sequence) onA.get(i).offset()).value();
      assertTrue(before < after, "offsets increase: " + before + " then " + after);
    }
    Offset resumeAt = onA.get(4).offset();
    assertEquals(described(onA.subList(5, onA.size())), described(currentByTag(1, "t", resumeAt)));
  }

  @Test
  void aLiveQueryOnOneNodeSeesWritesMadeOnAnother() {
    var byTag = queries(1).eventsByTag("live", Offset.noOffset()).take(3).runWith(Sink.seq(), nodes.system(1));
    var byId = queries(1).eventsByPersistenceId("live-writer", 0, Long.MAX_VALUE).take(3).runWith(Sink.seq(), nodes.system(1));
    List<PersistentRepr> events = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      events.add(PersistentRepr.apply(new Tagged("l" + i, CollectionConverters.asScala(java.util.Set.of("live")).toSet()),
          i, "live-writer", "", false, null, "w"));
      await(journal(0).write(List.of(new AtomicWrite(CollectionConverters.asScala(List.of(events.get(i - 1))).toList()))));
    }
    assertEquals(List.of("l1", "l2", "l3"), await(byTag).stream().map(e -> (String) e.event()).toList());
    assertEquals(List.of(1L, 2L, 3L), await(byId).stream().map(EventEnvelope::sequenceNr).toList());
  }

  @SuppressWarnings("unchecked")
  private static DurableStateUpdateStore<Object> states(int node) {
    return DurableStateStoreRegistry.get(Adapter.toClassic(nodes.system(node)))
        .getDurableStateStoreFor(DurableStateUpdateStore.class, "commitlane-persistence.state");
  }

  @Test
  void aDurableStateUpsertWithAStaleRevisionFromAnotherNodeFails() {
    await(states(0).upsertObject("account", 1, "opened", "accounts"));
    Throwable stale = failure(states(1).upsertObject("account", 1, "opened twice", "accounts"));
    assertInstanceOf(RevisionConflictException.class, stale);
    assertInstanceOf(org.apache.pekko.persistence.state.exception.DurableStateException.class, stale);
    var read = await(states(2).getObject("account"));
    assertEquals(1L, read.revision());
    assertEquals(Optional.of("opened"), read.value());
    await(states(2).upsertObject("account", 2, "credited", "accounts"));
    // Straight after, from the third node, which has not read the object: its replica may trail, the revision decides.
    await(states(1).upsertObject("account", 3, "debited", "accounts"));
    assertEquals(Optional.of("debited"), await(states(0).getObject("account")).value());
  }

  @Test
  void aNodeReadsBackItsOwnWritesAtOnceLeaderOrFollower() {
    // Each upsert reads the stored revision on its own node: on a follower, right after its own previous upsert.
    for (int node = 0; node < 3; node++) {
      String id = "chain-" + node;
      for (long revision = 1; revision <= 5; revision++) {
        await(states(node).upsertObject(id, revision, "r" + revision, ""));
      }
      assertEquals(5L, await(states(node).getObject(id)).revision());
    }
  }

  @Test
  void aReadBarrierSeesEveryWriteAcknowledgedBeforeItWasAskedForEvenWhenBarriersShareRoundTrips() {
    List<java.util.concurrent.CompletableFuture<byte[]>> seen = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      byte[] key = ("barrier-" + i).getBytes(StandardCharsets.UTF_8);
      await(nodes.store(0).write(new StoreWrite().put(key, new byte[] {(byte) i})));
      // Asked for after the write was acknowledged, while earlier barriers may still be in flight.
      seen.add(nodes.store(2).readBarrier()
          .thenApplyAsync(v -> nodes.store(2).get(key), nodes.store(2).executor()).toCompletableFuture());
    }
    for (int i = 0; i < seen.size(); i++) {
      assertArrayEquals(new byte[] {(byte) i}, await(seen.get(i)), "barrier " + i);
    }
  }

  @SuppressWarnings("unchecked")
  private static io.commitlane.persistence.javadsl.CommitlaneDurableStateStore<Object> stateQueries(int node) {
    return DurableStateStoreRegistry.get(Adapter.toClassic(nodes.system(node))).getDurableStateStoreFor(
        io.commitlane.persistence.javadsl.CommitlaneDurableStateStore.class,
        io.commitlane.persistence.javadsl.CommitlaneDurableStateStore.IDENTIFIER);
  }

  @Test
  void durableStateChangesAreTheSameOnEveryNodeAndAChangeMovesItsObjectToItsNewPosition() {
    for (int node = 0; node < 3; node++) {
      await(states(node).upsertObject("basket-" + node, 1, "one item", "baskets"));
    }
    await(states(2).upsertObject("basket-0", 2, "two items", "baskets")); // basket-0 moves after basket-2
    await(states(1).deleteObject("basket-1", 2)); // a tombstone, also a change
    List<List<String>> seen = new ArrayList<>();
    for (int node = 0; node < 3; node++) {
      seen.add(await(stateQueries(node).currentChanges("baskets", Offset.noOffset()).runWith(Sink.seq(), nodes.system(node)))
          .stream().map(c -> c.persistenceId() + "@" + c.offset() + ":" + c.getClass().getSimpleName()).toList());
    }
    assertEquals(List.of("basket-2", "basket-0", "basket-1"),
        seen.get(0).stream().map(d -> d.substring(0, d.indexOf('@'))).toList());
    assertTrue(seen.get(0).get(2).endsWith("DeletedDurableState"), seen.get(0).toString());
    assertEquals(seen.get(0), seen.get(1));
    assertEquals(seen.get(0), seen.get(2));
  }

  @Test
  void deletedEventsLeaveTheTagIndexOfEveryNode() {
    await(journal(0).write(List.of(atomic("pruned", 1, "p1", "p2", "p3"))));
    await(journal(1).delete("pruned", 2));
    for (int node = 0; node < 3; node++) {
      List<String> left = currentByTag(node, "t", Offset.noOffset()).stream()
          .filter(e -> e.persistenceId().equals("pruned")).map(e -> e.sequenceNr() + "=" + e.event()).toList();
      assertEquals(List.of("3=p3"), left, "node " + node);
    }
  }

  @Test
  void theLargestWriteReplicatesToEveryNode() {
    byte[] key = "largest-write".getBytes(StandardCharsets.UTF_8);
    byte[] value = new byte[(int) nodes.store(0).maxWriteBytes() - key.length];
    java.util.Arrays.fill(value, (byte) 7);
    await(nodes.store(0).write(new StoreWrite().put(key, value)));
    for (int node = 1; node < 3; node++) {
      await(nodes.store(node).readBarrier());
      assertTrue(java.util.Arrays.equals(value, nodes.store(node).get(key)), "node " + node + " holds the write");
    }
  }

  @Test
  void aCommitLargerThanTheLogCarriesIsRefusedAndTheGroupGoesOn() {
    byte[] key = "too-large".getBytes(StandardCharsets.UTF_8);
    Throwable refused = failure(nodes.store(0).write(new StoreWrite().put(key, new byte[ReplicatedDatabase.MAX_COMMIT_BYTES])));
    assertInstanceOf(InvalidReplicaRequestException.class, refused);
    await(nodes.store(0).write(new StoreWrite().put(key, new byte[] {1})));
    await(nodes.store(1).readBarrier());
    assertArrayEquals(new byte[] {1}, nodes.store(1).get(key));
  }

  /**
   * A follower holds the leader's last commits in its log before it learns (with the leader's next message) that they
   * committed. Here its replica is held from applying them: every current query started on it after the writes were
   * acknowledged still gives them, because it fixes its bound after a read barrier. The hold is let go once every
   * query asked for its barrier, or as soon as one completes without one (which then misses the writes).
   */
  @Test
  void currentQueriesOnAFollowerSeeEveryWriteAcknowledgedBeforeTheyStartedThoughItsReplicaHasNotAppliedThem() {
    for (int node = 0; node < 3; node++) {
      await(nodes.store(node).readBarrier()); // the group has a leader, every node knows it
    }
    int follower = follower();
    int writer = (follower + 1) % 3;
    ReplicatedDatabase held = replica(follower);
    java.util.concurrent.CountDownLatch letGo = new java.util.concurrent.CountDownLatch(1);
    long holdFrom = held.appliedIndex() + 1;
    Runnable stopHolding = held.onApplied(index -> {
      // Holds the apply thread (later entries wait) while this replica follows: should an election make it the
      // leader, it lets go, or no commit would be answered.
      long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
      try {
        while (index >= holdFrom && !letGo.await(50, java.util.concurrent.TimeUnit.MILLISECONDS)
            && "FOLLOWER".equals(held.status().role()) && System.nanoTime() < until) {
          // held
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      // The follower applies this entry (or an earlier one) and is held there, before the writes below.
      await(nodes.store(writer).write(new StoreWrite().put("hold-here".getBytes(StandardCharsets.UTF_8), new byte[] {1})));
      await(journal(writer).write(List.of(unapplied("not-yet", 1, "n1", "n2"))));
      await(states(writer).upsertObject("not-yet-state", 1, "s1", "not-yet"));
      await(nodes.store(writer).readBarrier());
      assertTrue(held.appliedIndex() < replica(writer).appliedIndex(),
          "the follower has not applied the writes: " + held.appliedIndex() + " < " + replica(writer).appliedIndex());

      java.util.concurrent.atomic.AtomicInteger barriers = new java.util.concurrent.atomic.AtomicInteger();
      int queries = 5;
      CompletableFuture<Void> everyBarrierAsked = new CompletableFuture<>();
      PluginStore watched = new ForwardingPluginStore(nodes.store(follower)) {
        @Override
        public CompletionStage<Void> readBarrier() {
          if (barriers.incrementAndGet() == queries) {
            everyBarrierAsked.complete(null);
          }
          return super.readBarrier();
        }
      };
      ActorSystem<Void> system = nodes.system(follower);
      PayloadCodec codec = new PayloadCodec((ExtendedActorSystem) Adapter.toClassic(system));
      EventQueries events = new EventQueries(watched, codec, 100, null);
      DurableStates states = new DurableStates(watched, codec, 100);
      CompletableFuture<List<EventEnvelope>> byTag = Source.fromGraph(events.eventsByTag("not-yet", Offset.noOffset(), false))
          .runWith(Sink.seq(), system).toCompletableFuture();
      CompletableFuture<List<EventEnvelope>> byId = Source.fromGraph(events.eventsByPersistenceId("not-yet", 0, Long.MAX_VALUE,
          false)).runWith(Sink.seq(), system).toCompletableFuture();
      CompletableFuture<List<String>> ids = Source.fromGraph(events.persistenceIds(false)).runWith(Sink.seq(), system)
          .toCompletableFuture();
      CompletableFuture<Optional<Long>> last = events.lastSequenceNr("not-yet").toCompletableFuture();
      CompletableFuture<List<org.apache.pekko.persistence.query.DurableStateChange<Object>>> changes =
          Source.fromGraph(states.changes("not-yet", Offset.noOffset(), false)).runWith(Sink.seq(), system)
              .toCompletableFuture();
      // And through the read journal of the follower's plugins (its barrier is not counted).
      CompletableFuture<List<EventEnvelope>> viaPlugin = queries(follower).currentEventsByTag("not-yet", Offset.noOffset())
          .runWith(Sink.seq(), system).toCompletableFuture();
      CompletableFuture.anyOf(everyBarrierAsked, byTag, byId, ids, last, changes, viaPlugin)
          .whenComplete((v, e) -> letGo.countDown());

      assertEquals(List.of("not-yet/1=n1", "not-yet/2=n2"), await(byTag).stream().map(e -> e.persistenceId() + "/"
          + e.sequenceNr() + "=" + e.event()).toList());
      assertEquals(List.of(1L, 2L), await(byId).stream().map(EventEnvelope::sequenceNr).toList());
      assertTrue(await(ids).contains("not-yet"), "persistenceIds gives the new id");
      assertEquals(Optional.of(2L), await(last));
      assertEquals(List.of("not-yet-state"), await(changes).stream().map(c -> c.persistenceId()).toList());
      assertEquals(2, await(viaPlugin).size());
    } finally {
      letGo.countDown();
      stopHolding.run();
    }
  }

  private static AtomicWrite unapplied(String pid, long first, String... payloads) {
    List<PersistentRepr> events = new ArrayList<>();
    for (int i = 0; i < payloads.length; i++) {
      events.add(PersistentRepr.apply(new Tagged(payloads[i], CollectionConverters.asScala(java.util.Set.of("not-yet"))
          .toSet()), first + i, pid, "", false, null, "writer-" + pid));
    }
    return new AtomicWrite(CollectionConverters.asScala(events).toList());
  }

  private static ReplicatedDatabase replica(int node) {
    return ((ReplicatedPluginStore) nodes.store(node)).database();
  }

  /** A node whose replica is a follower now. */
  private static int follower() {
    for (int node = 0; node < 3; node++) {
      var status = replica(node).status();
      if ("FOLLOWER".equals(status.role()) && status.leader() != null) {
        return node;
      }
    }
    throw new AssertionError("no follower among the three replicas");
  }
}
