package io.commitlane.persistence.replicated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose actor system stops and starts again on the same directory: its plugins reopen its replica, which
 * catches up on what the others committed meanwhile, and entities recover there with every event.
 */
class ReplicatedNodeRestartTest {
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

  private static void record(int node, String id, String... events) {
    TestProbe<Long> persisted = TestProbe.create(nodes.system(node));
    ActorRef<Recorder.Command> entity = nodes.kits.get(node).spawn(Recorder.create(id));
    for (String e : events) {
      entity.tell(new Recorder.Record(e, persisted.ref()));
      persisted.receiveMessage(Duration.ofSeconds(30));
    }
    nodes.kits.get(node).stop(entity);
  }

  private static List<String> recovered(int node, String id) {
    TestProbe<List<String>> state = TestProbe.create(nodes.system(node));
    ActorRef<Recorder.Command> entity = nodes.kits.get(node).spawn(Recorder.create(id));
    entity.tell(new Recorder.Get(state.ref()));
    List<String> events = state.receiveMessage(Duration.ofSeconds(30));
    nodes.kits.get(node).stop(entity);
    return events;
  }

  @Test
  void aRestartedNodeCatchesUpAndItsEntitiesRecoverEveryEvent() {
    record(1, "restarting", "a", "b");
    nodes.restart(1);
    // While node 2 was away and after, the others go on: two of three voters are a majority.
    record(0, "restarting", "c");
    assertEquals(List.of("a", "b", "c"), recovered(1, "restarting"));
    record(1, "restarting", "d");
    assertEquals(List.of("a", "b", "c", "d"), recovered(2, "restarting"));
  }
}
