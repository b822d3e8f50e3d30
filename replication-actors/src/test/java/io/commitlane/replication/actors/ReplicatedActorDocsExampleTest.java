package io.commitlane.replication.actors;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicationGroup;
import io.commitlane.testsupport.DocSnippets;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The actor snippet of docs/replication.md, run on three nodes in this JVM, and checked to be the text shown there. */
class ReplicatedActorDocsExampleTest {
  @TempDir Path dir;

  @Test
  void actorExample() throws Exception {
    List<ReplicaPeer> peers = new ArrayList<>();
    for (String id : List.of("a", "b", "c")) {
      try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
        peers.add(new ReplicaPeer(id, "127.0.0.1", s.getLocalPort()));
      }
    }
    ReplicationGroup group = new ReplicationGroup("shop", peers);
    List<ReplicaNode> nodes = new ArrayList<>();
    ActorTestKit kit = ActorTestKit.create();
    try {
      for (ReplicaPeer peer : peers) {
        nodes.add(ReplicaNode.start(ReplicaNodeSettings.of(peer, dir.resolve(peer.id()))));
      }
      for (ReplicaNode other : nodes.subList(1, 3)) {
        other.host(group);
      }
      ReplicaNode node = nodes.get(0);
      ActorSystem<Void> system = kit.system();
      // docs: actor
      ActorRef<DatabaseProtocol.Request> shop = system.systemActorOf(
          ReplicatedDatabaseActor.create(node.host(group)), "shop", Props.empty()); // one per node with a replica
      CompletionStage<DatabaseProtocol.WriteReply> written = AskPattern.ask(shop,
          replyTo -> new DatabaseProtocol.Write(List.of(Mutation.put("apples".getBytes(UTF_8), "9".getBytes(UTF_8))),
              LogEntries.of("sales", "sold 1 apple".getBytes(UTF_8)), RequestId.of("sale-2"), 1, replyTo),
          Duration.ofSeconds(30), system.scheduler());
      // end docs: actor
      DatabaseProtocol.Committed committed = assertInstanceOf(DatabaseProtocol.Committed.class,
          written.toCompletableFuture().get(30, TimeUnit.SECONDS));
      assertTrue(committed.logPosition() > 0);
    } finally {
      kit.shutdownTestKit();
      nodes.forEach(ReplicaNode::close);
    }
  }

  @Test
  void theDocsShowTheCodeThatRunsHere() {
    DocSnippets.assertShown(Path.of("src/test/java/io/commitlane/replication/actors/ReplicatedActorDocsExampleTest.java"),
        DocSnippets.root().resolve("docs/replication.md"), "actor");
  }
}
