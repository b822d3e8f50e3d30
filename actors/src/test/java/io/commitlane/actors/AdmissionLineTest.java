package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.put;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.internal.pipeline.CommitQueue;
import io.commitlane.actors.stream.CommitFlow;
import io.commitlane.actors.stream.CommitFlowSettings;
import io.commitlane.actors.stream.WriteOutcome;
import io.commitlane.actors.stream.WriteRequest;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waiting admission: tickets wait in one line per database, and every place that leaves the
 * queue is held for the next ticket in line, at once. One commit executor held at VALIDATED keeps
 * the queue full until the test lets a commit through, so every step is forced, never timed.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class AdmissionLineTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;



  private CommitlaneDatabase open(int capacity) {
    Map<String, Object> m = new HashMap<>();
    m.put("commit-threads", 1);
    m.put("commit-queue-capacity", capacity);
    m.put("write-groups.enabled", "off"); // one commit per dequeue, so each release frees exactly one place
    m.put("wal", "off");
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  /** Records the order in which tickets are granted. */
  private static Runnable grantsTo(BlockingQueue<String> grants, String name) {
    return () -> grants.add(name);
  }

  private static String next(BlockingQueue<String> grants) throws InterruptedException {
    String g = grants.poll(30, TimeUnit.SECONDS);
    assertTrue(g != null, "no ticket was granted");
    return g;
  }

  private static void assertRefused(CommitlaneDatabase db, AdmissionTicket t, String why) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(db.commit(db.begin().put(b("x"), b("x")), t)), why);
    assertInstanceOf(IllegalStateException.class, e.getCause(), why);
  }

  @Test
  void placesThatFreeAreGrantedToWaitersInLineOrder() throws Exception {
    try (CommitlaneDatabase db = open(2)) {
      BlockingQueue<String> grants = new LinkedBlockingQueue<>();
      try (Hold first = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r0".equals(c.tag()));
          Hold second = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r1".equals(c.tag()))) {
        CompletionStage<CommitResult> r0 = put(db, "r0", "k0", "v0");
        first.awaitArrivals(1); // the only executor holds r0; the queue is empty
        CompletionStage<CommitResult> r1 = put(db, "r1", "k1", "v1");
        CompletionStage<CommitResult> r2 = put(db, "r2", "k2", "v2");
        ExecutionException full = assertThrows(ExecutionException.class, () -> await(put(db, "over", "k", "v")));
        assertInstanceOf(CommitQueueFullException.class, full.getCause(), "a plain commit still fails at once");

        AdmissionTicket a = db.awaitAdmission(grantsTo(grants, "a"));
        AdmissionTicket b = db.awaitAdmission(grantsTo(grants, "b"));
        AdmissionTicket c = db.awaitAdmission(grantsTo(grants, "c"));
        assertFalse(a.isGranted() || b.isGranted() || c.isGranted(), "the queue is full: everyone waits");
        assertEquals(3, db.pipeline().queue().waiting());
        assertRefused(db, a, "a ticket not granted yet is refused");

        first.release(); // r0 completes; the executor dequeues r1 (held next): one place frees
        second.awaitArrivals(1);
        assertEquals("a", next(grants), "the first in line gets the first place");
        assertTrue(a.isGranted());
        assertFalse(b.isGranted(), "one place, one grant: no thundering herd");
        assertTrue(grants.isEmpty());

        second.release(); // r1 completes; r2 is dequeued: the next place goes to b
        assertEquals("b", next(grants));
        await(r0);
        await(r1);
        await(r2);
        // a and b hold the queue's two places; c waits until one is used and leaves, or given back.
        assertFalse(c.isGranted());
        b.cancel();
        assertEquals("c", next(grants), "a place given back goes to the next in line");

        Transaction ta = db.begin();
        ta.put(b("ka"), b("va"));
        await(db.commit(ta, a));
        Transaction tc = db.begin();
        tc.put(b("kc"), b("vc"));
        await(db.commit(tc, c));
        assertEquals("va", s(db.storage().get(b("ka"))));
        assertEquals("vc", s(db.storage().get(b("kc"))));
        assertRefused(db, a, "a ticket is used once");
        assertEquals(0, db.pipeline().queue().waiting());
        assertEquals(0, db.pipeline().queue().depth(), "every held place was used or given back");
      }
    }
  }

  @Test
  void aWaiterThatJoinsWhileAPlaceFreesIsNeverLeftWaiting() throws Exception {
    // Join-then-look against free-then-look: whichever comes first, the waiter is granted.
    try (CommitlaneDatabase db = open(1)) {
      for (int round = 0; round < 200; round++) {
        BlockingQueue<String> grants = new LinkedBlockingQueue<>();
        CompletionStage<CommitResult> r = put(db, "r", "k" + round, "v");
        AdmissionTicket t = db.awaitAdmission(grantsTo(grants, "t"));
        assertEquals("t", next(grants), "round " + round);
        await(r);
        Transaction txn = db.begin();
        txn.put(b("t" + round), b("v"));
        await(db.commit(txn, t));
      }
      assertEquals(0, db.pipeline().queue().depth());
    }
  }

  @Test
  void aGrantedPlaceIsGivenBackWhenItsCommitIsRefused() throws Exception {
    CommitlaneDatabase db = open(1);
    BlockingQueue<String> grants = new LinkedBlockingQueue<>();
    AdmissionTicket t = db.awaitAdmission(grantsTo(grants, "t"));
    assertEquals("t", next(grants), "a queue with room grants at once");
    CommitlaneDatabase other = Commitlane.get(testKit.system()).open(dir, db.settings());
    try {
      db.close(); // this handle refuses its commits from now on; the database stays open for the other
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(db.commit(db.begin().put(b("k"), b("v")), t)));
      assertInstanceOf(DatabaseClosedException.class, e.getCause());
      assertEquals(0, other.pipeline().queue().depth(), "the refused commit gave its place back");
      await(put(other, "after", "k2", "v2"));
    } finally {
      other.close();
    }
  }

  private static WriteRequest<Integer> request(int i) {
    return WriteRequest.builder(i).put(b("s" + i), b("v" + i)).tag("r" + i).build();
  }

  /** Wait for a condition another thread makes true; the timeout is only an upper bound. */
  private static void eventually(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
    }
  }

  @Test
  void aStreamWaitsInLineAndTakesTheNextPlaceAheadOfLaterWaiters() throws Exception {
    try (CommitlaneDatabase db = open(2)) {
      CommitQueue queue = db.pipeline().queue();
      CountDownLatch r3Admitted = new CountDownLatch(1);
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.ADMITTED && "r3".equals(c.tag())) {
          r3Admitted.countDown();
        }
      });
      BlockingQueue<String> grants = new LinkedBlockingQueue<>();
      try (Hold first = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r0".equals(c.tag()));
          Hold second = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r1".equals(c.tag()))) {
        CompletionStage<List<WriteOutcome<Integer>>> result = Source.range(0, 19).map(AdmissionLineTest::request)
            .via(CommitFlow.unordered(db, CommitFlowSettings.defaults().withParallelism(8)))
            .runWith(Sink.seq(), testKit.system());
        first.awaitArrivals(1); // the executor holds r0; r1 and r2 fill the queue; r3 is refused
        eventually(() -> queue.waiting() == 1, "the stream joined the line");
        long refused = db.stats().overloaded();
        AdmissionTicket later = db.awaitAdmission(grantsTo(grants, "later"));
        assertEquals(2, queue.waiting());

        first.release(); // r0 completes; r1 is dequeued (and held): the place goes to the stream, first in line
        assertTrue(r3Admitted.await(30, TimeUnit.SECONDS), "the stream resumed as soon as a place freed");
        assertFalse(later.isGranted(), "the later waiter did not overtake the stream");
        // The stream then pulled r4, which the full queue refused once: it waits in line again, behind the later waiter.
        eventually(() -> queue.waiting() == 2, "the stream joined the line again with its next request");
        assertEquals(refused + 1, db.stats().overloaded(), "no polling: one refusal per time the stream joins the line");

        second.release(); // r1 completes, r2 is dequeued: the next place goes to the later waiter
        assertEquals("later", next(grants));
        later.cancel(); // and back to the line: the stream takes it
        List<WriteOutcome<Integer>> outcomes = await(result);
        assertEquals(20, outcomes.size());
        assertTrue(outcomes.stream().allMatch(WriteOutcome::isCommitted), outcomes::toString);
      }
      eventually(() -> queue.depth() == 0, "every place was used or given back");
      assertEquals(0, queue.waiting());
    }
  }

  @Test
  void aStreamThatStopsWhileWaitingLeavesTheLine() throws Exception {
    try (CommitlaneDatabase db = open(2)) {
      CommitQueue queue = db.pipeline().queue();
      try (Hold hold = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r0".equals(c.tag()))) {
        Pair<UniqueKillSwitch, CompletionStage<List<WriteOutcome<Integer>>>> run = Source.range(0, 19).map(AdmissionLineTest::request)
            .via(CommitFlow.unordered(db, CommitFlowSettings.defaults().withParallelism(8)))
            .viaMat(KillSwitches.single(), Keep.right())
            .toMat(Sink.seq(), Keep.both())
            .run(testKit.system());
        hold.awaitArrivals(1);
        eventually(() -> queue.waiting() == 1, "the stream joined the line");
        run.first().shutdown(); // downstream ends: the stage stops with r3 parked
        await(run.second());
        eventually(() -> queue.waiting() == 0, "the stopped stream left the line");
        hold.release();
      }
      eventually(() -> queue.depth() == 0, "no place stayed held for the stopped stream");
      await(put(db, "after", "k", "v"));
      await(put(db, "after2", "k2", "v2"));
    }
  }

  @Test
  void aStreamThatStopsAfterItsGrantGivesThePlaceBack() throws Exception {
    // The grant is delivered to a stage that already stopped: the place must not stay held.
    try (CommitlaneDatabase db = open(1)) {
      CommitQueue queue = db.pipeline().queue();
      try (Hold hold = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r0".equals(c.tag()));
          Hold next = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r1".equals(c.tag()))) {
        Pair<UniqueKillSwitch, CompletionStage<List<WriteOutcome<Integer>>>> run = Source.range(0, 19).map(AdmissionLineTest::request)
            .via(CommitFlow.unordered(db, CommitFlowSettings.defaults().withParallelism(8)))
            .viaMat(KillSwitches.single(), Keep.right())
            .toMat(Sink.seq(), Keep.both())
            .run(testKit.system());
        hold.awaitArrivals(1); // r0 held; r1 fills the queue (capacity 1); r2 waits in line
        eventually(() -> queue.waiting() == 1, "the stream joined the line");
        AdmissionTicket behind = db.awaitAdmission(() -> {});
        run.first().shutdown();
        await(run.second());
        hold.release(); // r1 is dequeued (held): its place goes to the stream if it is still in line, else to behind
        next.awaitArrivals(1);
        eventually(behind::isGranted, "the place reached the next waiter, through the stopped stream or past it");
        behind.cancel();
        next.release();
      }
      eventually(() -> queue.depth() == 0, "no place stayed held");
      assertEquals(0, queue.waiting());
    }
  }

  @Test
  void theStreamsPageSnippetCommitsIntoTheHeldPlace() throws Exception {
    java.util.concurrent.ExecutorService myExecutor = java.util.concurrent.Executors.newSingleThreadExecutor();
    try (CommitlaneDatabase db = open(1)) {
      byte[] key = b("k");
      byte[] value = b("v");
      CompletableFuture<CompletionStage<CommitResult>> committed = new CompletableFuture<>();
      // docs/streams.md, "How the line is fair":
      CompletableFuture<Void> granted = new CompletableFuture<>();
      AdmissionTicket ticket = db.awaitAdmission(() -> granted.complete(null)); // runs on the thread that freed the place: hand over only
      granted.thenRunAsync(() -> {
        Transaction txn = db.begin();
        txn.put(key, value);
        committed.complete(db.commit(txn, ticket)); // into the held place: never refused for a full queue
      }, myExecutor);
      await(await(committed));
      assertEquals("v", s(db.storage().get(key)));
    } finally {
      myExecutor.shutdown();
    }
  }
}
