package io.commitlane.persistence;

import static io.commitlane.persistence.PluginSystem.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.persistence.javadsl.CommitlaneReadJournal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.NoOffset;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.query.Sequence;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read journal: tag queries resume exactly from an offset, live queries follow commits, pages end cleanly. The
 * tests share one actor system (each with its own ids and tags); the restart test has a database of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadJournalTest {
  @TempDir
  static Path dir;
  private PluginSystem plugins;
  private CommitlaneReadJournal queries;

  @BeforeAll
  void start() {
    open(dir.resolve("db"));
  }

  private void open(Path db) {
    plugins = new PluginSystem(db, "commitlane-persistence.page-size = 4");
    queries = PersistenceQuery.get(plugins.system().classicSystem())
        .getReadJournalFor(CommitlaneReadJournal.class, CommitlaneReadJournal.IDENTIFIER);
  }

  @AfterAll
  void stop() {
    plugins.close();
  }

  /** An entity whose events "t:X..." are tagged X (one character: each test has tags of its own). */
  private ActorRef<TestEntity.Command> entity(String id) {
    return plugins.kit.spawn(TestEntity.create(id, e -> e.startsWith("t:") ? Set.of(e.substring(2, 3)) : Set.of()));
  }

  private long persist(ActorRef<TestEntity.Command> entity, String... events) {
    TestProbe<Long> probe = plugins.kit.createTestProbe();
    entity.tell(new TestEntity.Persist(List.of(events), probe.getRef()));
    return probe.receiveMessage(Duration.ofSeconds(20));
  }

  private <T> List<T> all(org.apache.pekko.stream.javadsl.Source<T, ?> source) {
    return await(source.runWith(Sink.seq(), plugins.system()));
  }

  private static List<String> ids(List<EventEnvelope> envelopes) {
    List<String> out = new ArrayList<>();
    envelopes.forEach(e -> out.add(e.persistenceId() + "#" + e.sequenceNr() + "=" + e.event()));
    return out;
  }

  private static long position(EventEnvelope e) {
    return ((Sequence) e.offset()).value();
  }

  @Test
  void eventsByTagResumeFromAnOffsetWithNoGapAndNoDuplicate() {
    List<ActorRef<TestEntity.Command>> entities = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      entities.add(entity("resume-" + i));
    }
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < entities.size(); i++) {
        persist(entities.get(i), "t:" + (i % 2 == 0 ? "m" : "n") + "-" + round, "untagged", "t:o-" + round);  // one persistAll of 3
      }
    }
    // the union of the three tags' queries is every tagged event of these entities
    List<EventEnvelope> tagged = new ArrayList<>(all(queries.currentEventsByTag("m", NoOffset.getInstance())));
    tagged.addAll(all(queries.currentEventsByTag("n", NoOffset.getInstance())));
    tagged.addAll(all(queries.currentEventsByTag("o", NoOffset.getInstance())));
    tagged.sort(java.util.Comparator.comparingLong(ReadJournalTest::position));
    assertEquals(30, tagged.size(), ids(tagged).toString());
    assertEquals(30, new HashSet<>(ids(tagged)).size());
    for (int i = 1; i < tagged.size(); i++) {
      assertTrue(position(tagged.get(i)) > position(tagged.get(i - 1)), "offsets increase");
    }
    List<EventEnvelope> os = all(queries.currentEventsByTag("o", NoOffset.getInstance()));
    assertEquals(15, os.size());
    Offset afterSix = os.get(5).offset();
    assertEquals(ids(os.subList(6, 15)), ids(all(queries.currentEventsByTag("o", afterSix))));
    assertEquals(9, all(queries.currentEventsByTag("m", NoOffset.getInstance())).size());
    assertEquals(List.of(), all(queries.currentEventsByTag("never-used", NoOffset.getInstance())));
  }

  @Test
  void liveEventsByTagSeeEveryEventCommittedWhileTheyRunExactlyOnce() {
    ActorRef<TestEntity.Command> a = entity("live-a");
    persist(a, "t:a-0");
    CompletionStage<List<EventEnvelope>> live = queries.eventsByTag("a", NoOffset.getInstance()).take(21)
        .runWith(Sink.seq(), plugins.system());
    List<ActorRef<TestEntity.Command>> writers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      writers.add(entity("live-w" + i));
    }
    // four entities write concurrently (their commits finish in any order); every event reaches the query once
    List<TestProbe<Long>> probes = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      for (ActorRef<TestEntity.Command> w : writers) {
        TestProbe<Long> p = plugins.kit.createTestProbe();
        w.tell(new TestEntity.Persist(List.of("t:a-" + round), p.getRef()));
        probes.add(p);
      }
    }
    probes.forEach(p -> p.receiveMessage(Duration.ofSeconds(20)));
    List<EventEnvelope> seen = await(live);
    assertEquals(21, new HashSet<>(ids(seen)).size(), ids(seen).toString());
    for (int i = 1; i < seen.size(); i++) {
      assertTrue(position(seen.get(i)) > position(seen.get(i - 1)));
    }
    assertEquals(ids(seen), ids(all(queries.currentEventsByTag("a", NoOffset.getInstance()))));
  }

  @Test
  void aCurrentQueryWithOneEventLeftAfterAFullPageCompletes() {
    ActorRef<TestEntity.Command> e = entity("pages");
    for (int i = 1; i <= 5; i++) {
      persist(e, "t:p-" + i);  // page-size is 4: a full page, then one event
    }
    assertEquals(5, all(queries.currentEventsByPersistenceId("pages", 0, Long.MAX_VALUE)).size());
    assertEquals(5, all(queries.currentEventsByTag("p", NoOffset.getInstance())).size());
    persist(e, "t:p-6", "t:p-7", "t:p-8");  // exactly two full pages
    assertEquals(8, all(queries.currentEventsByPersistenceId("pages", 0, Long.MAX_VALUE)).size());
    assertEquals(8, all(queries.currentEventsByTag("p", NoOffset.getInstance())).size());
    assertEquals(List.of("pages#3=t:p-3", "pages#4=t:p-4"), ids(all(queries.currentEventsByPersistenceId("pages", 3, 4))));
    assertEquals(List.of(), all(queries.currentEventsByPersistenceId("no-such-id", 0, Long.MAX_VALUE)));
  }

  @Test
  void aCurrentQueryRunAgainSeesWhatWasWrittenBetweenItsRuns() {
    ActorRef<TestEntity.Command> e = entity("rerun");
    persist(e, "t:q-1");
    org.apache.pekko.stream.javadsl.Source<EventEnvelope, ?> byTag = queries.currentEventsByTag("q", NoOffset.getInstance());
    org.apache.pekko.stream.javadsl.Source<EventEnvelope, ?> byId = queries.currentEventsByPersistenceId("rerun", 0,
        Long.MAX_VALUE);
    assertEquals(1, all(byTag).size());
    assertEquals(1, all(byId).size());
    persist(e, "t:q-2");
    // Each run fixes its own bound when it starts.
    assertEquals(List.of("rerun#1=t:q-1", "rerun#2=t:q-2"), ids(all(byTag)));
    assertEquals(List.of("rerun#1=t:q-1", "rerun#2=t:q-2"), ids(all(byId)));
  }

  @Test
  void liveEventsByPersistenceIdFollowTheIdsWritesAndEndAtTheirBound() {
    ActorRef<TestEntity.Command> e = entity("follow");
    persist(e, "one");
    CompletionStage<List<EventEnvelope>> upToFour = queries.eventsByPersistenceId("follow", 1, 4).runWith(Sink.seq(),
        plugins.system());
    persist(e, "two", "three");
    persist(e, "four");
    persist(e, "five");
    assertEquals(List.of("follow#1=one", "follow#2=two", "follow#3=three", "follow#4=four"), ids(await(upToFour)));
  }

  @Test
  void persistenceIdsListEveryIdOnceInTheOrderItFirstCommitted() {
    persist(entity("id-1"), "x");
    // other tests' ids are in the shared database too: these are the ones named id-
    CompletionStage<List<String>> live = queries.persistenceIds().filter(id -> id.startsWith("id-")).take(3)
        .runWith(Sink.seq(), plugins.system());
    ActorRef<TestEntity.Command> two = entity("id-2");
    persist(two, "x");
    persist(two, "y");
    persist(entity("id-3"), "x");
    assertEquals(List.of("id-1", "id-2", "id-3"), await(live));
    assertEquals(List.of("id-1", "id-2", "id-3"), all(queries.currentPersistenceIds().filter(id -> id.startsWith("id-"))));
    assertEquals(Optional.of(2L), await(queries.currentLastSequenceNumberByPersistenceId("id-2")));
    assertEquals(Optional.empty(), await(queries.currentLastSequenceNumberByPersistenceId("id-9")));
  }

  @Test
  void offsetsAreTheSameAfterARestartAndResumeExactly() {
    PluginSystem shared = plugins;
    CommitlaneReadJournal sharedQueries = queries;
    try {
      open(dir.resolve("restart"));
      restart();
    } finally {
      plugins.close();
      plugins = shared;
      queries = sharedQueries;
    }
  }

  private void restart() {
    ActorRef<TestEntity.Command> e = entity("restart");
    persist(e, "t:r-1", "t:r-2");
    List<EventEnvelope> before = all(queries.currentEventsByTag("r", NoOffset.getInstance()));
    plugins.close();
    open(dir.resolve("restart"));
    assertEquals(ids(before), ids(all(queries.currentEventsByTag("r", NoOffset.getInstance()))));
    assertEquals(before.get(1).offset(), all(queries.currentEventsByTag("r", NoOffset.getInstance())).get(1).offset());
    persist(entity("restart"), "t:r-3");
    List<EventEnvelope> resumed = all(queries.currentEventsByTag("r", before.get(1).offset()));
    assertEquals(List.of("restart#3=t:r-3"), ids(resumed));
    assertTrue(position(resumed.get(0)) > position(before.get(1)));
  }
}
