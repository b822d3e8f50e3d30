package io.commitlane.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.persistence.javadsl.CommitlaneDurableStateStore;
import io.commitlane.persistence.javadsl.CommitlaneReadJournal;
import io.commitlane.testkit.CrashHarness;
import io.commitlane.testkit.CrashRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.NoOffset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.state.DurableStateStoreRegistry;
import org.apache.pekko.persistence.state.javadsl.GetObjectResult;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 under an event-sourced workload, in every append mode, RocksDB's WAL off (the transaction log keeps the
 * writes) and on: every event whose persist handler ran is recovered, sequence numbers have no gap and no duplicate,
 * a persistAll is all or nothing, the tag query sees exactly the recovered events, the recovered entity state (from a
 * snapshot and the events after it) is the same events, and every acknowledged durable-state upsert survives.
 */
class PersistenceCrashTest {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "append={0} wal={1}")
  @CsvSource({"serialized,off,120", "leaderless,off,200", "actor,off,160", "serialized,on,180", "leaderless,on,140",
      "actor,on,220"})
  void everyAcknowledgedEventAndStateSurvivesAKill(String append, String wal, int killAfter) throws Exception {
    CrashRun run = CrashHarness.of(PersistenceCrashWorkload.class, dir).args("append=" + append, "wal=" + wal, "entities=8",
        "states=4").killAfterAcks(killAfter).timeout(Duration.ofSeconds(90)).run();
    assertTrue(run.killed(), "the workload was killed, not ended: " + run.stderr());

    Map<String, Long> ackedEvents = new HashMap<>();
    Map<String, Long> ackedRevisions = new HashMap<>();
    for (String ack : run.acknowledged()) {
      String[] f = ack.split(":");
      if (f[0].equals("event")) {
        ackedEvents.merge(f[1], Long.parseLong(f[2]), Math::max);
      } else {
        ackedRevisions.merge(f[1], Long.parseLong(f[2]), Math::max);
      }
    }
    assertTrue(ackedEvents.size() > 0 && ackedRevisions.size() > 0, run.acknowledged().toString());

    try (PluginSystem plugins = new PluginSystem(dir.resolve("db"), PersistenceCrashWorkload.config(dir, append, wal))) {
      Set<String> recovered = new HashSet<>();
      for (int i = 0; i < 8; i++) {
        String id = "entity-" + i;
        List<Object> replay = new JournalProtocol(plugins).replay(id);
        long highest = Long.parseLong(((String) replay.get(replay.size() - 1)).substring("highest=".length()));
        List<Object> events = replay.subList(0, replay.size() - 1);
        assertEquals(highest, events.size(), id + ": sequence numbers 1.." + highest + " with no gap: " + events);
        assertTrue(highest >= ackedEvents.getOrDefault(id, 0L), id + " lost acknowledged events: highest " + highest
            + ", acknowledged up to " + ackedEvents.get(id));
        Map<String, Integer> batches = new TreeMap<>();
        for (Object e : events) {
          String s = (String) e;
          batches.merge(s.substring(0, s.indexOf(':')), 1, Integer::sum);
          recovered.add(id + "#" + s);
        }
        for (Object e : events) {
          String s = (String) e;
          int n = Integer.parseInt(s.substring(s.indexOf('/') + 1));
          assertEquals(n, batches.get(s.substring(0, s.indexOf(':'))), id + ": a persistAll is all or nothing: " + events);
        }
        TestProbe<List<String>> state = plugins.kit.createTestProbe();
        plugins.kit.spawn(CrashEntity.create(id, false, w -> { })).tell(new CrashEntity.GetState(state.getRef()));
        assertEquals(events, state.receiveMessage(Duration.ofSeconds(30)), id + ": recovered from its snapshot and events");
      }

      CommitlaneReadJournal queries = PersistenceQuery.get(plugins.system().classicSystem())
          .getReadJournalFor(CommitlaneReadJournal.class, CommitlaneReadJournal.IDENTIFIER);
      List<EventEnvelope> tagged = PluginSystem.await(queries.currentEventsByTag("all", NoOffset.getInstance())
          .runWith(Sink.seq(), plugins.system()));
      List<String> seen = new ArrayList<>();
      tagged.forEach(e -> seen.add(e.persistenceId() + "#" + e.event()));
      assertEquals(recovered.size(), seen.size(), "the tag query sees each recovered event once");
      assertEquals(recovered, new HashSet<>(seen));

      @SuppressWarnings("unchecked")
      CommitlaneDurableStateStore<Object> store = DurableStateStoreRegistry.get(plugins.system().classicSystem())
          .getDurableStateStoreFor(CommitlaneDurableStateStore.class, CommitlaneDurableStateStore.IDENTIFIER);
      for (Map.Entry<String, Long> acked : ackedRevisions.entrySet()) {
        GetObjectResult<Object> r = PluginSystem.await(store.getObject(acked.getKey()));
        assertTrue(r.revision() >= acked.getValue(), acked + " lost: stored revision " + r.revision());
        assertEquals("v" + r.revision(), r.value().orElseThrow(), "the value of the stored revision");
      }
    }
  }
}
