package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.log.TransactionLogActor;
import io.commitlane.actors.internal.log.TransactionLogs;
import io.commitlane.actors.internal.pipeline.CompletionBatcher;
import io.commitlane.actors.internal.protocol.RequestLedger;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.LogView;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code txlog.append = actor} the transaction-log actor is the log's only writer: every
 * write, force and segment creation runs on its thread, none on a commit thread; a flush event it
 * receives while it writes a batch waits in its mailbox until the batch is finished; it keeps the
 * role across a restart and hands it back when it stops.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class LogWriterActorTest {
  private static final String LOG_THREAD = "commitlane.log-dispatcher";
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  /** Actor-written logs of {@code segmentSize} segments on {@code fs}, WAL off. */
  private CommitlaneDatabase open(FaultInjectingFileSystem fs, Durability durability, String segmentSize) {
    PipelineSettings base = PipelineSettings.fromConfig(ConfigFactory.parseMap(Map.of("commit-threads", 2, "wal", "off",
        "txlog.append", "actor", "txlog.max-segment-size", segmentSize)).atPath("commitlane")
        .withFallback(testKit.system().settings().config()));
    return Commitlane.get(testKit.system()).open(dir, base.withLog(base.log().withFileSystem(fs).withDurability(durability)));
  }

  private static CompletionStage<CommitResult> logged(CommitlaneDatabase db, String key) {
    Transaction t = db.begin().useLog("orders");
    t.put(b(key), b("v"));
    t.addLogEntry(b(key));
    return db.commit(t);
  }

  /** Commits until one is written by the actor: it takes the writer's role when it starts, just after open. */
  private static void awaitTheActorWrites(CommitlaneDatabase db, Set<String> writers) {
    int[] n = {0};
    testKit.createTestProbe().awaitAssert(Duration.ofSeconds(30), () -> {
      writers.clear();
      await(logged(db, "warm-up-" + n[0]++));
      assertTrue(!writers.isEmpty() && writers.stream().allMatch(t -> t.contains(LOG_THREAD)), writers.toString());
      return null;
    });
  }

  @Test
  void everyWriteForceAndSegmentCreationRunsOnTheActorsThread() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Set<String> writers = ConcurrentHashMap.newKeySet();
    fs.beforeWrite(() -> writers.add(Thread.currentThread().getName()));
    fs.beforeForce(() -> writers.add(Thread.currentThread().getName()));
    fs.beforeCreate(() -> writers.add(Thread.currentThread().getName()));
    try (CommitlaneDatabase db = open(fs, Durability.FSYNC, "4 KiB")) {
      awaitTheActorWrites(db, writers);
      writers.clear();
      List<CompletionStage<CommitResult>> commits = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        commits.add(logged(db, "k" + i));
      }
      for (CompletionStage<CommitResult> c : commits) {
        await(c);
      }
      LogView log = db.transactionLog("orders");
      assertTrue(log.stats().segmentFiles() > 1, "the run crossed segment switches");
      assertTrue(log.stats().fsyncs() > 0);
      assertFalse(writers.isEmpty());
      for (String t : writers) {
        assertTrue(t.contains(LOG_THREAD), "the log was written or forced on " + t + ", not by its actor");
      }
    }
  }

  @Test
  void aFlushEventWaitsInTheActorsMailboxWhileItWritesABatch() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Set<String> writers = ConcurrentHashMap.newKeySet();
    AtomicBoolean hold = new AtomicBoolean();
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    fs.beforeWrite(() -> {
      writers.add(Thread.currentThread().getName());
      if (hold.get() && Thread.currentThread().getName().contains(LOG_THREAD) && hold.compareAndSet(true, false)) {
        writing.countDown();
        awaitUninterruptibly(release);
      }
    });
    try (CommitlaneDatabase db = open(fs, Durability.PROCESS, "16 MiB")) {
      awaitTheActorWrites(db, writers);
      LogAppend a = LogAppend.of(await(logged(db, "a"))).orElseThrow();
      LogView log = db.transactionLog("orders");
      long flushedBefore = log.flushedPosition();
      assertTrue(flushedBefore <= a.position());

      hold.set(true);
      CompletionStage<CommitResult> b = logged(db, "b");
      writing.await(); // the actor is inside b's batch write
      CountDownLatch flushEventSent = new CountDownLatch(1);
      try (Database.Registration listener = db.storage().addFlushListener(seq -> flushEventSent.countDown())) {
        db.storage().flush(); // holds a and b: b's RocksDB write returned before its finish was queued
        flushEventSent.await(); // the pipeline's listener, registered first, told the actor already
      }
      assertEquals(flushedBefore, log.flushedPosition(), "the flush event waits behind the batch");
      assertFalse(b.toCompletableFuture().isDone(), "b is not acknowledged before its record is written");
      release.countDown();
      await(b);
      testKit.createTestProbe().awaitAssert(Duration.ofSeconds(30), () -> {
        assertTrue(log.flushedPosition() > a.position(), "flushed " + log.flushedPosition());
        return null;
      });
    } finally {
      release.countDown();
    }
  }

  /**
   * The actor keeps the writer's role across a restart (its supervisor restarts it after a
   * failure) and hands it back to the log's own thread when it stops: no acknowledgement is lost
   * either way.
   */
  @Test
  void theWriterStaysWithARestartedActorAndGoesBackToTheLogsThreadWhenItStops() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Set<String> writers = ConcurrentHashMap.newKeySet();
    fs.beforeWrite(() -> writers.add(Thread.currentThread().getName()));
    LogSettings settings = LogSettings.defaults().withAppendMode(AppendMode.ACTOR).withFileSystem(fs);
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      TransactionLogs logs = TransactionLogs.open(db, settings, true, null);
      try (Database.Registration hook = db.addCommitHook(logs)) {
        ActorRef<TransactionLogActor.Command> actor = testKit.spawn(Behaviors.supervise(TransactionLogActor.create(logs,
            Duration.ZERO, new RequestLedger(db, RequestIdSettings.defaults()), Duration.ofHours(1), new CompletionBatcher(Runnable::run),
            Runnable::run)).onFailure(RuntimeException.class,
            SupervisorStrategy.restart()), "txlog-writer");
        testKit.createTestProbe().awaitAssert(Duration.ofSeconds(30), () -> {
          writers.clear();
          acknowledged(logs, db, "before");
          assertTrue(!writers.isEmpty() && writers.stream().noneMatch(t -> t.startsWith("commitlane-txlog-writer-")),
              writers.toString());
          return null;
        });

        actor.tell(new TransactionLogActor.WriteQueued(null)); // fails the actor: its supervisor restarts it
        writers.clear();
        acknowledged(logs, db, "after the restart");
        assertTrue(writers.stream().noneMatch(t -> t.startsWith("commitlane-txlog-writer-")), writers.toString());

        testKit.stop(actor);
        writers.clear();
        acknowledged(logs, db, "after the stop");
        assertEquals(Set.of("commitlane-txlog-writer-orders"), writers);
      } finally {
        logs.close();
      }
    }
  }

  /** A logged commit through storage alone, waiting for its log acknowledgement as the pipeline does. */
  private static void acknowledged(TransactionLogs logs, Database db, String key) throws Exception {
    Transaction t = db.begin().useLog("orders");
    t.put(b(key), b("v"));
    t.addLogEntry(b(key));
    CommitResult r = t.commitSync();
    logs.whenDurable(r).get(30, TimeUnit.SECONDS);
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    while (true) {
      try {
        latch.await();
        return;
      } catch (InterruptedException e) {
        // keep waiting: the test releases it
      }
    }
  }

  /**
   * The request-id purge (a scan of every record) is handed to the executor the actor is given
   * (the blocking dispatcher), not run on the actor, whose thread writes the logs in actor mode.
   */
  @Test
  void theRequestIdPurgeRunsOnTheBlockingExecutorNotOnTheLogActor() throws Exception {
    LogSettings settings = LogSettings.defaults().withAppendMode(AppendMode.ACTOR);
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      TransactionLogs logs = TransactionLogs.open(db, settings, true, null);
      try {
        org.apache.pekko.actor.testkit.typed.javadsl.TestProbe<String> handed = testKit.createTestProbe();
        java.util.concurrent.Executor blocking = task -> {
          handed.ref().tell("purge handed over");
          task.run();
        };
        ActorRef<TransactionLogActor.Command> actor = testKit.spawn(TransactionLogActor.create(logs, Duration.ZERO,
            new RequestLedger(db, RequestIdSettings.defaults()), Duration.ofHours(1), new CompletionBatcher(Runnable::run),
            blocking), "txlog-purge");
        actor.tell(TransactionLogActor.PurgeRequestIds.INSTANCE);
        handed.expectMessage("purge handed over");
        testKit.stop(actor);
      } finally {
        logs.close();
      }
    }
  }
}
