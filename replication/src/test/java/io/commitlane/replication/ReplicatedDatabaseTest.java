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
import java.util.ArrayList;
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
  void theLargestCommitReachesEveryReplicaAndALargerOneIsRefusedUnsent() throws Exception {
    int leader = cluster.awaitLeader(WAIT);
    int follower = (leader + 1) % 3;
    // 55 bytes of framing around a one-byte key in the default store: the commit encodes to exactly the largest entry.
    byte[] largest = new byte[ReplicatedDatabase.MAX_COMMIT_BYTES - 55];
    java.util.Arrays.fill(largest, (byte) 3);
    CommitReceipt receipt = await(cluster.database(follower).begin().put(b("L"), largest).commit());
    cluster.awaitApplied(receipt.index(), WAIT);
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(largest, await(cluster.database(i).get("default", b("L"), ReadConsistency.LOCAL)), "replica " + i);
    }
    java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
        java.util.concurrent.ExecutionException.class,
        () -> await(cluster.database(follower).begin().put(b("L"), new byte[largest.length + 1]).commit()));
    org.junit.jupiter.api.Assertions.assertInstanceOf(InvalidReplicaRequestException.class, refused.getCause());
    CommitReceipt after = await(cluster.database(follower).begin().put(b("L"), b("small")).commit());
    cluster.awaitApplied(after.index(), WAIT);
    assertArrayEquals(b("small"), await(cluster.database(leader).get("default", b("L"), ReadConsistency.LOCAL)));
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
  void anExpectationIsCheckedAtTheCommitsPlaceInTheLogNotInTheSnapshotItWasBegunOn() throws Exception {
    int leader = cluster.awaitLeader(WAIT);
    int follower = (leader + 1) % 3;
    // Both transactions hold a snapshot of the follower from before "seat/7" was written.
    ReplicatedTransaction swap = cluster.database(follower).begin();
    ReplicatedTransaction claim = cluster.database(follower).begin();
    CommitReceipt ann = await(cluster.database(leader).begin().put(b("seat/7"), b("ann")).commit());

    swap.expect("default", b("seat/7"), b("ann")).put(b("seat/7"), b("bob"));
    CommitReceipt bob = await(swap.commit());
    assertTrue(bob.index() > ann.index());

    claim.expect("default", b("seat/7"), null).expect("other", b("nothing"), null).put(b("seat/7"), b("cid"));
    CompletionException refused = assertThrows(CompletionException.class, () -> claim.commit().toCompletableFuture().join());
    ReplicaExpectationException failed = assertInstanceOf(ReplicaExpectationException.class, refused.getCause());
    assertFalse(failed.isRetryable());
    assertEquals(2, failed.actual().size());
    assertArrayEquals(b("bob"), failed.actual().get(0), "what the key held at the commit's place in the log");
    assertNull(failed.actual().get(1));

    cluster.awaitApplied(failed.index(), WAIT);
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(b("bob"), await(cluster.database(i).get("default", b("seat/7"), ReadConsistency.LOCAL)),
          "replica " + i + " applied the swap and not the claim");
    }
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

  @Test
  void everyReplicaHoldsTheSameLogRecordsAtTheCommitsIndexes() throws Exception {
    cluster.awaitLeader(WAIT);
    List<Long> orders = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ReplicatedTransaction t = cluster.database(i % 3).begin();
      t.put(b("order/" + i), b("placed")).log("orders", b("placed " + i), b("by replica " + (i % 3)));
      if (i % 2 == 0) {
        t.log("audit", b("order " + i));
      }
      orders.add(await(t.commit(b("order-request-" + i))).index());
    }
    await(cluster.database(1).begin().put(b("order/unlogged"), b("x")).commit());
    CommitReceipt resent = await(cluster.database(2).begin().put(b("order/0"), b("placed")).log("orders", b("placed 0"))
        .commit(b("order-request-0")));
    assertTrue(resent.resent(), "a resent request id appends no second record");

    ReplicatedTransaction stale = cluster.database(0).begin();
    stale.get(b("order/1"));
    await(cluster.database(1).begin().put(b("order/1"), b("shipped")).commit());
    stale.put(b("order/1"), b("cancelled")).log("orders", b("cancelled 1"));
    CompletionException conflict = assertThrows(CompletionException.class, () -> stale.commit().toCompletableFuture().join());
    assertInstanceOf(ReplicaConflictException.class, conflict.getCause());
    CommitReceipt last = await(cluster.database(0).begin().put(b("order/5"), b("placed")).log("orders", b("placed 5")).commit());
    orders.add(last.index());
    cluster.awaitApplied(last.index(), WAIT);

    List<String> seen = null;
    for (int r = 0; r < 3; r++) {
      try (ReplicaChangeFeed feed = cluster.database(r).changes("orders", orders.get(0) - 1)) {
        List<ReplicaLogRecord> records = feed.poll(100);
        assertEquals(orders, records.stream().map(ReplicaLogRecord::index).toList(), "record positions on replica " + r);
        assertEquals(last.index(), feed.position());
        for (int i = 1; i < records.size(); i++) {
          assertTrue(records.get(i).timestamp() > records.get(i - 1).timestamp(), "timestamps rise with the index");
        }
        List<String> text = records.stream().map(rec -> rec.index() + "@" + rec.timestamp() + ":"
            + rec.entries().stream().map(e -> new String(e, UTF_8)).toList()).toList();
        assertEquals(List.of("placed 0", "by replica 0"), records.get(0).entries().stream().map(e -> new String(e, UTF_8)).toList());
        if (seen != null) {
          assertEquals(seen, text, "replica " + r + " holds the same records, timestamps included");
        }
        seen = text;
      }
      try (ReplicaChangeFeed audit = cluster.database(r).changes("audit", orders.get(1))) {
        assertEquals(List.of(orders.get(2), orders.get(4)), audit.poll(10).stream().map(ReplicaLogRecord::index).toList(),
            "a feed resumes after an index, and reads its own log only");
      }
    }
  }

  @Test
  void aFeedThatCaughtUpCompletesWhenMoreWhenTheNextCommitIsApplied() throws Exception {
    cluster.awaitLeader(WAIT);
    CommitReceipt first = await(cluster.database(0).begin().put(b("shipment/1"), b("x")).log("shipments", b("one")).commit());
    cluster.awaitApplied(first.index(), WAIT);
    int follower = (cluster.awaitLeader(WAIT) + 1) % 3;
    try (ReplicaChangeFeed feed = cluster.database(follower).changes("shipments", first.index())) {
      assertEquals(List.of(), feed.poll(10), "nothing after the first record yet");
      java.util.concurrent.CompletableFuture<Void> more = feed.whenMore().toCompletableFuture();
      CommitReceipt second = await(cluster.database(1).begin().put(b("shipment/2"), b("y")).log("shipments", b("two")).commit());
      await(more);
      List<ReplicaLogRecord> next = feed.poll(10);
      while (next.isEmpty()) { // woken by an entry applied before the second commit: wait again
        await(feed.whenMore());
        next = feed.poll(10);
      }
      assertEquals(second.index(), next.get(0).index());
      assertEquals("two", new String(next.get(0).entries().get(0), UTF_8));
    }
    assertThrows(IllegalArgumentException.class, () -> cluster.database(0).changes("no spaces", 0));
    assertThrows(IllegalArgumentException.class, () -> cluster.database(0).begin().log("", b("x")));
  }

  @Test
  void afterSyncAFollowersLocalReadsSeeEveryAcknowledgedCommit() throws Exception {
    int leader = cluster.awaitLeader(WAIT);
    int follower = (leader + 1) % 3;
    CommitReceipt written = await(cluster.database(leader).begin().put(b("synced"), b("yes")).commit());
    long index = await(cluster.database(follower).sync());
    assertTrue(index >= written.index(), "the barrier waited for the leader's applied index " + index + ", past " + written.index());
    assertArrayEquals(b("yes"), await(cluster.database(follower).get("default", b("synced"), ReadConsistency.LOCAL)));
  }

  /**
   * Every entry point of a handle and a transaction refuses a missing or malformed argument with
   * one typed error, thrown by the call before anything is sent: a caller that passes a bad
   * argument learns which, and nothing is written.
   */
  @Test
  void everyEntryPointRefusesAMissingOrMalformedArgumentTypedAndWritesNothing() throws Exception {
    cluster.awaitLeader(WAIT);
    ReplicatedDatabase db = cluster.database(0);
    byte[] k = b("argument-check");
    String tooLong = "s".repeat(70_000);
    List<org.junit.jupiter.api.function.Executable> calls = List.of(
        () -> db.get(null),
        () -> db.get(null, k, ReadConsistency.LINEARIZABLE),
        () -> db.get("default", null, ReadConsistency.LOCAL),
        () -> db.get("default", k, null),
        () -> db.get(tooLong, k, ReadConsistency.LINEARIZABLE),
        () -> db.changes(null, 0),
        () -> db.changes("no spaces", 0),
        () -> db.addReplica(null, WAIT),
        () -> db.addReplica(new ReplicaPeer("x", "127.0.0.1", 1), null),
        () -> db.addReplica(new ReplicaPeer("x", "127.0.0.1", 1), Duration.ofSeconds(-1)),
        () -> db.addListener(null),
        () -> db.removeReplica(null),
        () -> db.removeReplica(" "),
        () -> db.begin().get(null),
        () -> db.begin().get(null, k),
        () -> db.begin().list(null),
        () -> db.begin().list(null, KeyRange.all()),
        () -> db.begin().put(null, b("v")),
        () -> db.begin().put(k, null),
        () -> db.begin().put(null, k, b("v")),
        () -> db.begin().remove(null),
        () -> db.begin().remove(null, k),
        () -> db.begin().log(null, b("x")),
        () -> db.begin().log("", b("x")),
        () -> db.begin().log("ok", (byte[][]) null),
        () -> db.begin().log("ok", b("x"), null),
        () -> db.begin().put(k, b("v")).commit(new byte[0]),
        () -> ReplicatedDatabase.connect(null, WAIT),
        () -> ReplicatedDatabase.connect(cluster.group(), null),
        () -> ReplicatedDatabase.connect(cluster.group(), Duration.ZERO));
    for (int i = 0; i < calls.size(); i++) {
      InvalidReplicaRequestException refused = assertThrows(InvalidReplicaRequestException.class, calls.get(i), "call " + i);
      assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank(), "call " + i + " says what was wrong");
    }
    assertNull(await(db.get(k)), "nothing was written");
  }
}
