package io.commitlane.cluster;

import io.commitlane.cluster.internal.owner.OwnerLock;
import static io.commitlane.cluster.Await.as;
import static io.commitlane.cluster.Await.b;
import static io.commitlane.cluster.Await.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Mutation;
import io.commitlane.actors.Key;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new owner whose database is still held by a previous one (here: the test holds its owner
 * lock, as a stuck owner on another node of the shared volume would) retries the open for a
 * bounded time, buffering a bounded number of commands, then answers with a clear retryable
 * error and writes nothing; once the lock is free the next request opens it as the next epoch.
 */
class OwnerHandoverTest {
  @TempDir
  Path dir;

  @Test
  void aDatabaseStillHeldElsewhereIsRefusedClearlyThenOpensOnceReleased() {
    try (TestCluster cluster = TestCluster.start(1, dir,
        "commitlane.cluster { open-timeout = 1s, open-retry-interval = 50ms, open-buffer = 1 }")) {
      DatabaseSharding databases = cluster.databases.get(0);
      OwnerLock stuck = OwnerLock.tryAcquire(dir.resolve("held"), "a stuck owner elsewhere");
      assertNotNull(stuck);
      WriteReply first;
      WriteReply second;
      try {
        CompletionStage<WriteReply> buffered = databases.write("held", List.of(Mutation.put(b("k"), b("v1"))));
        second = result(databases.write("held", List.of(Mutation.put(b("k"), b("v2")))));
        first = result(buffered);
      } finally {
        stuck.close();
      }
      // The buffer holds one command: the second is refused at once, the first after open-timeout.
      assertEquals(UnavailableReason.BUFFER_FULL, as(Unavailable.class, second).reason(), second.toString());
      Unavailable held = as(Unavailable.class, first);
      assertEquals(UnavailableReason.PREVIOUS_OWNER_HOLDS, held.reason());
      assertTrue(held.outcomeKnown() && held.retryable());
      assertTrue(held.message().contains("still held by its previous owner a stuck owner elsewhere"), held.message());

      // Released: the next request starts a new open, which takes the lock as the next owner.
      Committed c = result(databases.write("held", List.of(Mutation.put(b("k"), b("v3")))), Committed.class);
      assertEquals(2, c.stamp().ownerEpoch());
      Values v = result(databases.get("held", Key.of(b("k"))), Values.class);
      assertEquals("v3", Await.s(v.values().get(0)), "the refused writes wrote nothing");
      result(databases.stats("held"), DatabaseStats.class);
    }
  }

  @Test
  void aLockReleasedWhileTheOpenRetriesLetsTheBufferedCommandsThrough() throws Exception {
    try (TestCluster cluster = TestCluster.start(1, dir, "commitlane.cluster { open-timeout = 30s, open-retry-interval = 20ms }")) {
      DatabaseSharding databases = cluster.databases.get(0);
      OwnerLock stuck = OwnerLock.tryAcquire(dir.resolve("late"), "a slow previous owner");
      CompletionStage<WriteReply> waiting;
      try (LogLatch busy = LogLatch.on(ShardedDatabase.class, "database late is held by")) {
        waiting = databases.write("late", List.of(Mutation.put(b("k"), b("v"))));
        busy.await(java.time.Duration.ofSeconds(30)); // the entity found the lock taken and is retrying
      } finally {
        stuck.close();
      }
      Committed c = result(waiting, Committed.class);
      assertEquals(2, c.stamp().ownerEpoch());
      assertNull(result(databases.get("late", Key.of(b("other"))), Values.class).values().get(0));
    }
  }
}
