package io.commitlane.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.testsupport.DocSnippets;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.FeedOpened;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster snippet of docs/cluster.md, run on a client-only node, and checked to be the text shown there. */
class ClusterDocsExamplesTest {
  @TempDir
  Path dir;

  @Test
  void clientNodeSnippet() throws Exception {
    try (TestCluster cluster = TestCluster.start(2, 1, dir, "")) {
      ActorSystem<Void> system = cluster.system(2); // no role: client-only
      List<String> printed = new ArrayList<>();
      // docs: client-node
      DatabaseSharding databases = DatabaseSharding.init(system);             // once per node; this one hosts nothing
      databases.whenReady().toCompletableFuture().get(30, TimeUnit.SECONDS);  // sharding can route its requests now
      byte[] key = "order-1".getBytes(UTF_8);
      RequestId id = RequestId.random();                                      // one id per write, kept for its retries
      WriteReply placed;
      do {
        placed = databases.write("shop", List.of(Mutation.put(key, "placed".getBytes(UTF_8))),
                LogEntries.of("orders", "order-1 placed".getBytes(UTF_8)), id)  // routed to the owner of "shop"
            .toCompletableFuture().get(30, TimeUnit.SECONDS);
      } while (placed instanceof WriteRefused r && r.refusal() instanceof Unavailable);  // with the id, even NO_REPLY is safe to resend
      printed.add("committed at " + ((Committed) placed).stamp());            // owner epoch . commit version

      // Optimistic concurrency across nodes: write only if the key still holds what was read.
      byte[] seen = ((Values) databases.get("shop", Key.of(key)).toCompletableFuture().get(30, TimeUnit.SECONDS)).values().get(0);
      WriteReply paid = databases.compareAndWrite("shop", List.of(Expectation.value(key, seen)),
              List.of(Mutation.put(key, "paid".getBytes(UTF_8))), null, RequestId.random())
          .toCompletableFuture().get(30, TimeUnit.SECONDS);                  // Conflicted(actual) if another node got there first

      // The shop's change feed, read on this node from whichever node owns the shop.
      FeedOpened feed = (FeedOpened) databases.changeFeed("shop", "orders", -1).toCompletableFuture().get(30, TimeUnit.SECONDS);
      feed.feed().getSource()
          .take(1)                                                            // a real consumer runs until cancelled
          .runForeach(r -> printed.add(r.position() + ": " + new String(r.entries().get(0), UTF_8)), system)
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
      // end docs: client-node
      assertFalse(databases.hostsDatabases());
      Await.as(Committed.class, paid);
      assertEquals(2, printed.size());
      assertTrue(printed.get(0).startsWith("committed at 1."), printed.get(0));
      assertTrue(printed.get(1).endsWith(": order-1 placed"), printed.get(1));
    }
  }

  @Test
  void theDocsShowTheCodeThatRunsHere() {
    DocSnippets.assertShown(Path.of("src/test/java/io/commitlane/cluster/ClusterDocsExamplesTest.java"),
        DocSnippets.root().resolve("docs/cluster.md"), "client-node");
  }

}
