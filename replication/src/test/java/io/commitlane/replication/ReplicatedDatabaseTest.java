package io.commitlane.replication;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** One three-node group for the whole class (starting one takes seconds); each test uses keys of its own. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicatedDatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private ReplicaCluster cluster;

  @BeforeAll
  void start() {
    cluster = new ReplicaCluster(dir, 3);
  }

  @AfterAll
  void stop() {
    cluster.close();
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void aCommitFromAnyReplicaIsAppliedByEveryReplica() throws Exception {
    int leader = cluster.awaitLeader(WAIT);
    int follower = (leader + 1) % 3;
    ReplicatedTransaction t = cluster.database(follower).begin();
    t.put(b("alice"), b("100")).put("ledger", b("entry-1"), b("opened"));
    CommitReceipt receipt = await(t.commit());
    assertFalse(receipt.resent());
    cluster.awaitApplied(receipt.index(), WAIT);
    for (int i = 0; i < 3; i++) {
      ReplicatedDatabase db = cluster.database(i);
      assertArrayEquals(b("100"), await(db.get(b("alice"))), "linearizable read through replica " + i);
      assertArrayEquals(b("100"), await(db.get("default", b("alice"), ReadConsistency.LOCAL)), "local read on replica " + i);
      assertArrayEquals(b("opened"), await(db.get("ledger", b("entry-1"), ReadConsistency.LOCAL)), "a store the commit created, on replica " + i);
    }
  }

  @Test
  void aReadModifyWriteThatLostTheRaceConflictsOnEveryReplica() throws Exception {
    cluster.awaitLeader(WAIT);
    CommitReceipt first = await(cluster.database(0).begin().put(b("counter"), b("0")).commit());
    cluster.awaitApplied(first.index(), WAIT);

    ReplicatedTransaction a = cluster.database(1).begin();
    ReplicatedTransaction c = cluster.database(2).begin();
    assertArrayEquals(b("0"), a.get(b("counter")));
    assertArrayEquals(b("0"), c.get(b("counter")));
    a.put(b("counter"), b("1"));
    c.put(b("counter"), b("1"));
    await(a.commit());
    CompletionException lost = assertThrows(CompletionException.class, () -> c.commit().toCompletableFuture().join());
    ReplicaConflictException conflict = assertInstanceOf(ReplicaConflictException.class, lost.getCause());
    assertTrue(conflict.isRetryable());
    assertTrue(conflict.getMessage().contains("\"counter\""), conflict.getMessage());
    assertArrayEquals(b("1"), await(cluster.database(0).get(b("counter"))));
  }

  @Test
  void aScanConflictsWithAnInsertIntoTheRangeItRead() throws Exception {
    cluster.awaitLeader(WAIT);
    CommitReceipt orders13 = await(cluster.database(0).begin().put(b("order/1"), b("a")).put(b("order/3"), b("c")).commit());
    cluster.awaitApplied(orders13.index(), WAIT); // a follower's replica may lag the acknowledgement
    ReplicatedTransaction reader = cluster.database(0).begin();
    List<KeyValue> orders = reader.list(KeyRange.prefix(b("order/")));
    assertEquals(2, orders.size());
    reader.put(b("order-count"), b("2"));
    await(cluster.database(1).begin().put(b("order/2"), b("b")).commit());
    CompletionException lost = assertThrows(CompletionException.class, () -> reader.commit().toCompletableFuture().join());
    assertInstanceOf(ReplicaConflictException.class, lost.getCause());

    // A limited scan covers only what it returned: an insert past it is no conflict.
    ReplicatedTransaction page = cluster.database(0).begin();
    assertEquals(List.of("order/1"), page.list(KeyRange.prefix(b("order/")).limit(1)).stream().map(kv -> new String(kv.key(), UTF_8)).toList());
    page.put(b("first-order"), b("order/1"));
    await(cluster.database(1).begin().put(b("order/4"), b("d")).commit());
    await(page.commit());
  }

  @Test
  void aTransactionSeesItsOwnWritesInReadsAndScans() throws Exception {
    cluster.awaitLeader(WAIT);
    CommitReceipt written = await(cluster.database(0).begin().put(b("own/k1"), b("v1")).put(b("own/k2"), b("v2")).commit());
    cluster.awaitApplied(written.index(), WAIT);
    ReplicatedTransaction t = cluster.database(2).begin();
    t.remove(b("own/k1")).put(b("own/k3"), b("v3"));
    assertNull(t.get(b("own/k1")));
    assertArrayEquals(b("v3"), t.get(b("own/k3")));
    assertEquals(List.of("own/k2", "own/k3"), t.list(KeyRange.prefix(b("own/"))).stream().map(kv -> new String(kv.key(), UTF_8)).toList());
    assertEquals(List.of("own/k3", "own/k2"), t.list(KeyRange.prefix(b("own/")).reverse()).stream().map(kv -> new String(kv.key(), UTF_8)).toList());
    t.abort();
  }

  @Test
  void aResentRequestIdIsAnsweredFromTheFirstCommitAndNotAppliedTwice() throws Exception {
    cluster.awaitLeader(WAIT);
    byte[] id = b("transfer-42");
    CommitReceipt first = await(cluster.database(0).begin().put(b("balance"), b("90")).commit(id));
    await(cluster.database(1).begin().put(b("balance"), b("500")).commit());
    CommitReceipt again = await(cluster.database(2).begin().put(b("balance"), b("90")).commit(id));
    assertTrue(again.resent());
    assertEquals(first.index(), again.index());
    assertArrayEquals(b("500"), await(cluster.database(0).get(b("balance"))), "the resend wrote nothing");
  }

  @Test
  void anInvalidStoreNameIsRefusedByEveryReplicaAndWritesNothing() throws Exception {
    cluster.awaitLeader(WAIT);
    ReplicatedTransaction t = cluster.database(0).begin();
    t.put("__commitlane-mine", b("k"), b("v")).put(b("also"), b("not written"));
    CompletionException refused = assertThrows(CompletionException.class, () -> t.commit().toCompletableFuture().join());
    assertInstanceOf(CommitRefusedException.class, refused.getCause());
    assertNull(await(cluster.database(1).get(b("also"))));
  }

  @Test
  void aClientWithoutAReplicaReadsThroughTheLeaderAndConflictsLikeAReplica() throws Exception {
    cluster.awaitLeader(WAIT);
    try (ReplicatedDatabase client = ReplicatedDatabase.connect(cluster.group(), Duration.ofSeconds(10))) {
      ReplicatedTransaction fill = client.begin();
      for (int i = 0; i < 2_500; i++) {
        fill.put(b(String.format("item/%05d", i)), b("v" + i));
      }
      await(fill.commit());

      ReplicatedTransaction reader = client.begin();
      List<KeyValue> all = reader.list(KeyRange.prefix(b("item/")));
      assertEquals(2_500, all.size(), "a scan longer than one page reads every page");
      assertEquals("item/02499", new String(all.get(2_499).key(), UTF_8));
      assertEquals(List.of("item/02499", "item/02498"),
          reader.list(KeyRange.prefix(b("item/")).reverse().limit(2)).stream().map(kv -> new String(kv.key(), UTF_8)).toList());
      assertArrayEquals(b("v7"), reader.get(b("item/00007")));
      reader.put(b("item-count"), b("2500"));
      await(cluster.database(0).begin().put(b("item/99999"), b("late")).commit());
      CompletionException lost = assertThrows(CompletionException.class, () -> reader.commit().toCompletableFuture().join());
      assertInstanceOf(ReplicaConflictException.class, lost.getCause());

      assertArrayEquals(b("late"), await(client.get(b("item/99999"))));
      CompletionException local = assertThrows(CompletionException.class,
          () -> client.get("default", b("item/99999"), ReadConsistency.LOCAL).toCompletableFuture().join());
      assertInstanceOf(IllegalStateException.class, local.getCause());
    }
  }
}
