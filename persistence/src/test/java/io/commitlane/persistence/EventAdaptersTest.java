package io.commitlane.persistence;

import static io.commitlane.persistence.PluginSystem.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.persistence.javadsl.CommitlaneReadJournal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.journal.EventAdapter;
import org.apache.pekko.persistence.journal.EventSeq;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Event adapters and tagging work as with any journal: what is stored is adapted, replay and queries adapt it back. */
class EventAdaptersTest {
  @TempDir
  Path dir;

  /** Stores "v2:" + the event with manifest "v2"; reads it back without the prefix. */
  public static final class Versioned implements EventAdapter {
    @Override
    public String manifest(Object event) {
      return "v2";
    }

    @Override
    public Object toJournal(Object event) {
      return "v2:" + event;
    }

    @Override
    public EventSeq fromJournal(Object event, String manifest) {
      String s = (String) event;
      return EventSeq.single(manifest.equals("v2") ? s.substring(3) : "unexpected manifest " + manifest);
    }
  }

  @Test
  void theJournalsAdaptersApplyToWritesReplayAndQueries() {
    String config = """
        commitlane-persistence.journal {
          event-adapters { versioned = "%s" }
          event-adapter-bindings { "java.lang.String" = versioned }
        }
        """.formatted(Versioned.class.getName());
    try (PluginSystem plugins = new PluginSystem(dir.resolve("db"), config)) {
      // untagged: Pekko's journal-side adapters see a tagged event as a Tagged wrapper, which no binding matches
      ActorRef<TestEntity.Command> e = plugins.kit.spawn(TestEntity.create("adapted", s -> Set.of()));
      TestProbe<Long> written = plugins.kit.createTestProbe();
      e.tell(new TestEntity.Persist(List.of("first", "second"), written.getRef()));
      written.receiveMessage(Duration.ofSeconds(20));

      TestProbe<List<String>> state = plugins.kit.createTestProbe();
      plugins.kit.spawn(TestEntity.create("adapted", s -> Set.of())).tell(new TestEntity.GetState(state.getRef()));
      assertEquals(List.of("first", "second"), state.receiveMessage(Duration.ofSeconds(20)), "recovered through the adapter");

      CommitlaneReadJournal queries = PersistenceQuery.get(plugins.system().classicSystem())
          .getReadJournalFor(CommitlaneReadJournal.class, CommitlaneReadJournal.IDENTIFIER);
      List<EventEnvelope> read = await(queries.currentEventsByPersistenceId("adapted", 0, Long.MAX_VALUE)
          .runWith(Sink.seq(), plugins.system()));
      assertEquals(List.of("first", "second"), read.stream().map(EventEnvelope::event).toList(), "queries adapt too");
      List<Object> stored = new JournalProtocol(plugins).replay("adapted");
      assertEquals(List.of("first", "second", "highest=2"), stored, "the journal actor's replay adapts too");
    }
  }
}
