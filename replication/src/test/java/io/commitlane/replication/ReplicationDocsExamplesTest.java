package io.commitlane.replication;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.testsupport.DocSnippets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snippets of docs/replication.md, run on three nodes in this JVM, and checked to be the text shown there. */
class ReplicationDocsExamplesTest {
  @TempDir Path dir;

  @Test
  void firstExample() throws Exception {
    List<String> printed = new ArrayList<>();
    int[] ports = {ReplicaCluster.freePort(), ReplicaCluster.freePort(), ReplicaCluster.freePort()};
    List<ReplicaNode> nodes = new ArrayList<>();
    try {
      // docs: first-example
      ReplicationGroup shop = ReplicationGroup.of("shop",                      // one Raft group per database
          new ReplicaPeer("a", "127.0.0.1", ports[0]),
          new ReplicaPeer("b", "127.0.0.1", ports[1]),
          new ReplicaPeer("c", "127.0.0.1", ports[2]));
      List<ReplicatedDatabase> replicas = new ArrayList<>();
      for (ReplicaPeer peer : shop.voters()) {                                 // in production: one node per machine
        ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(peer, dir.resolve(peer.id())));
        nodes.add(node);
        replicas.add(node.host(shop));                                        // this node's replica of "shop"
      }

      ReplicatedDatabase db = replicas.get(2);                                 // any replica takes commits
      byte[] stock = "stock/apples".getBytes(UTF_8);
      CommitReceipt receipt;
      while (true) {
        ReplicatedTransaction t = db.begin();                                  // reads this node's replica
        byte[] have = t.get(stock);
        long next = (have == null ? 10 : Long.parseLong(new String(have, UTF_8))) - 1;
        t.put(stock, Long.toString(next).getBytes(UTF_8));
        try {
          receipt = t.commit("sale-1".getBytes(UTF_8))                         // a request id: a resend applies once
              .toCompletableFuture().get(30, TimeUnit.SECONDS);                // a majority holds it now
          break;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof ReplicaConflictException)               // lost a race: run it again
              && !(e.getCause() instanceof ReplicaUnavailableException)) {    // no leader yet: resend, same id
            throw e;
          }
        }
      }
      printed.add("committed at log index " + receipt.index());
      byte[] left = db.get(stock).toCompletableFuture().get(30, TimeUnit.SECONDS); // linearizable, through the leader
      printed.add("apples left: " + new String(left, UTF_8));
      // end docs: first-example

      // docs: change-feed
      ReplicatedTransaction t = db.begin();
      t.put("order/7".getBytes(UTF_8), "placed".getBytes(UTF_8))
          .log("order-events", "order 7 placed".getBytes(UTF_8));    // a record of log "order-events"
      long index = t.commit().toCompletableFuture().get(30, TimeUnit.SECONDS).index();

      ReplicatedDatabase other = replicas.get(1);                      // any replica: same records, same positions
      try (ReplicaChangeFeed feed = other.changes("order-events", index - 1)) { // the records after index - 1
        List<ReplicaLogRecord> records = feed.poll(100);
        while (records.isEmpty()) {                                   // that replica has not applied it yet
          feed.whenMore().toCompletableFuture().get(30, TimeUnit.SECONDS);
          records = feed.poll(100);
        }
        ReplicaLogRecord r = records.get(0);
        printed.add(r.log() + " at " + r.index() + ": " + new String(r.entries().get(0), UTF_8));
      }
      // end docs: change-feed
    } finally {
      for (ReplicaNode node : nodes) {
        node.close();
      }
    }
    assertEquals(3, printed.size());
    assertTrue(printed.get(0).startsWith("committed at log index "), printed.get(0));
    assertEquals("apples left: 9", printed.get(1));
    assertTrue(printed.get(2).matches("order-events at [0-9]+: order 7 placed"), printed.get(2));
  }

  @Test
  void theDocsShowTheCodeThatRunsHere() {
    Path source = Path.of("src/test/java/io/commitlane/replication/ReplicationDocsExamplesTest.java");
    DocSnippets.assertShown(source, DocSnippets.root().resolve("docs/replication.md"), "first-example");
    DocSnippets.assertShown(source, DocSnippets.root().resolve("docs/replication.md"), "change-feed");
  }

}
