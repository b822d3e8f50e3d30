package io.commitlane.replication.actors;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Mutation;
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
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/actors.md's configured database: the settings block shown there (its ports replaced by
 * free ones) makes the snippet's actor a client of a three-node group in this JVM, and a local
 * block makes the same snippet's actor a local database; the page shows the code that runs here.
 */
class ConfiguredDatabaseDocsExampleTest {
  private static final Path PAGE = DocSnippets.root().resolve("docs/actors.md");

  @TempDir Path dir;

  /** A guardian that spawns the database the config describes and hands its reference out. */
  private static Behavior<Void> guardian(ActorRef<ActorRef<DatabaseProtocol.Request>> out) {
    return Behaviors.setup(context -> {
      // docs: configured-database
      // The same line for a local database or a replicated one: the settings choose.
      ActorRef<DatabaseProtocol.Request> accounts =
          context.spawn(ConfiguredDatabaseActor.create(context.getSystem().settings().config()), "accounts");
      // end docs: configured-database
      out.tell(accounts);
      return Behaviors.empty();
    });
  }

  /** Spawns the guardian in a system with {@code settings}, and debits an account through what it spawned. */
  private static void debitThrough(Config settings) throws Exception {
    ActorTestKit kit = ActorTestKit.create("accounts", settings.withFallback(ConfigFactory.load()));
    try {
      TestProbe<ActorRef<DatabaseProtocol.Request>> spawned = kit.createTestProbe();
      kit.spawn(guardian(spawned.ref()));
      ActorRef<DatabaseProtocol.Request> accounts = spawned.receiveMessage(Duration.ofSeconds(30));
      byte[] key = "acct/1".getBytes(UTF_8);
      assertInstanceOf(DatabaseProtocol.Committed.class, AskPattern.<DatabaseProtocol.Request, DatabaseProtocol.WriteReply>ask(
          accounts, r -> new DatabaseProtocol.Write(List.of(Mutation.put(key, "10".getBytes(UTF_8))), null, 1, r),
          Duration.ofSeconds(30), kit.scheduler()).toCompletableFuture().get(30, TimeUnit.SECONDS));
      assertInstanceOf(DatabaseProtocol.Committed.class, AskPattern.<DatabaseProtocol.Request, DatabaseProtocol.WriteReply>ask(
          accounts, r -> new DatabaseProtocol.ConditionalWrite(List.of(Expectation.value(key, "10".getBytes(UTF_8))),
              List.of(Mutation.put(key, "7".getBytes(UTF_8))), null, 2, r),
          Duration.ofSeconds(30), kit.scheduler()).toCompletableFuture().get(30, TimeUnit.SECONDS));
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void theShownSettingsMakeTheSnippetAClientOfAReplicatedGroup() throws Exception {
    String shown = DocSnippets.fenced(DocSnippets.read(PAGE), "<!-- docs: configured-settings", "hocon");
    List<ReplicaPeer> peers = new ArrayList<>();
    String settings = shown;
    for (String id : List.of("n1", "n2", "n3")) {
      try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
        peers.add(new ReplicaPeer(id, "127.0.0.1", s.getLocalPort()));
      }
      int shownPort = 7100 + peers.size();
      settings = settings.replace(id + "=127.0.0.1:" + shownPort, id + "=127.0.0.1:" + peers.get(peers.size() - 1).port());
    }
    ReplicationGroup group = new ReplicationGroup("accounts", peers);
    List<ReplicaNode> nodes = new ArrayList<>();
    try {
      for (ReplicaPeer peer : peers) {
        ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(peer, dir.resolve(peer.id())));
        nodes.add(node);
        node.host(group);
      }
      debitThrough(ConfigFactory.parseString(settings));
    } finally {
      nodes.forEach(ReplicaNode::close);
    }
  }

  @Test
  void aLocalBlockMakesTheSameSnippetALocalDatabase() throws Exception {
    debitThrough(ConfigFactory.parseString("commitlane.database { kind = local, path = \""
        + dir.resolve("accounts").toString().replace("\\", "/") + "\" }"));
  }

  @Test
  void theDocsShowTheCodeThatRunsHere() {
    DocSnippets.assertShown(Path.of("src/test/java/io/commitlane/replication/actors/ConfiguredDatabaseDocsExampleTest.java"),
        PAGE, "configured-database");
  }
}
