package io.commitlane.cluster;

import static io.commitlane.cluster.Await.b;
import static io.commitlane.cluster.Await.result;
import static io.commitlane.cluster.Await.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.Key;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.sharding.ClusterSharding;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.pattern.Patterns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node without the hosting role ({@code commitlane.cluster.role}) is client-only: it needs no
 * data directory, reads and writes every database through the hosting nodes, and hosts no shard
 * however many databases it uses.
 */
class ClientOnlyNodeTest {
  @TempDir
  Path dir;

  @Test
  void aClientOnlyNodeReadsAndWritesWithoutHostingAnything() throws Exception {
    try (TestCluster cluster = TestCluster.start(2, 1, dir, "")) {
      DatabaseSharding client = cluster.databases.get(2);
      assertFalse(client.hostsDatabases());
      assertTrue(cluster.databases.get(0).hostsDatabases());
      assertNull(client.settings().dataDir(), "a client-only node has no data directory");
      String self = cluster.address(2).toString();
      for (int i = 0; i < 8; i++) {
        String db = "client-" + i;
        Committed c = result(client.write(db, List.of(Mutation.put(b("k"), b("v" + i))), null, RequestId.of("w-" + i)),
            Committed.class);
        assertEquals(1, c.stamp().ownerEpoch());
        assertEquals("v" + i, s(result(client.get(db, Key.of(b("k"))), Values.class).values().get(0)));
        DatabaseStats st = result(client.stats(db), DatabaseStats.class);
        assertNotEquals(self, st.owner(), db + " is owned by a hosting node");
        assertEquals("v" + i, s(result(cluster.databases.get(0).get(db, Key.of(b("k"))), Values.class).values().get(0)),
            "a hosting node reads what the client wrote");
      }
      Object state = Patterns.ask(ClusterSharding.get(Adapter.toClassic(cluster.system(2))).shardRegion(ShardedDatabase.TYPE_KEY.name()),
          ShardRegion.getShardRegionStateInstance(), Duration.ofSeconds(10)).toCompletableFuture().get();
      assertEquals(0, ((ShardRegion.CurrentShardRegionState) state).getShards().size(), "the client's region is a proxy: " + state);
    }
  }
}
