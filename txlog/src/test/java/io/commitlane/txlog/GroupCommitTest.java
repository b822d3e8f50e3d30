package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** FSYNC durability: one force serves many records, and no future is left hanging. */
@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class GroupCommitTest {
  @Parameter AppendMode mode;

  private static final long HANG_GUARD_SECONDS = 60;

  @TempDir Path dir;

  /**
   * Eight appenders each write 100 records and ask for durability of every one. The first force
   * is held (a latch in the file system's force hook) until every record is written, so the
   * schedule is fixed: that force covers what was written before it started, and one more force
   * covers all the rest.
   */
  @Test
  void concurrentAppendersShareForces() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings =
        LogSettings.defaults().withAppendMode(mode).withFileSystem(fs).withDurability(Durability.FSYNC);
    int appenders = 8;
    int perAppender = 100;
    CountDownLatch allWritten = new CountDownLatch(1);
    AtomicBoolean firstForce = new AtomicBoolean(true);
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      log.finish(append(log, 0, "creates the segment"), () -> 0);
      long forcesBefore = fs.forceCount();
      fs.beforeForce(() -> {
        if (Thread.currentThread().getName().startsWith(forcingThreadPrefix())
            && firstForce.getAndSet(false)) {
          awaitUninterruptibly(allWritten);
        }
      });
      List<CompletableFuture<Void>> futures = new ArrayList<>();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      for (int a = 0; a < appenders; a++) {
        int id = a;
        threads.add(new Thread(() -> {
          try {
            for (int i = 0; i < perAppender; i++) {
              long p = append(log, id * 1000L + i, "x");
              CompletableFuture<Void> durable = log.whenDurable(p);
              synchronized (futures) {
                futures.add(durable);
              }
              if (mode == AppendMode.ACTOR) {
                log.finishAsync(p, () -> 0); // a blocking finish would wait for the held force
              } else {
                log.finish(p, () -> 0);
              }
            }
          } catch (Throwable t) {
            failure.compareAndSet(null, t);
          }
        }, "appender-" + a));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      assertNull(failure.get());
      allWritten.countDown();
      CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
          .get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);

      int records = appenders * perAppender;
      long forces = fs.forceCount() - forcesBefore;
      assertTrue(forces >= 1 && forces <= 2, "expected 2 forces for " + records + " records, got "
          + forces);
      assertTrue(forces < records);
      LogStats stats = log.stats();
      assertTrue(stats.recordsPerFsync() > 1, stats.toString());
      assertEquals(log.committedWatermark(), stats.durablePosition());
    }
  }

  @Test
  void aFailedForceFailsTheFuturesAndStopsAppends() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings =
        LogSettings.defaults().withAppendMode(mode).withFileSystem(fs).withDurability(Durability.FSYNC);
    TransactionLog log = TransactionLog.open(dir, settings);
    log.finish(append(log, 0, "creates the segment"), () -> 0); // so the force that fails is a record's
    long p = append(log, 1, "a");
    fs.failNextForce();
    CompletableFuture<Void> durable = log.whenDurable(p);
    ExecutionOutcome outcome = outcome(durable);
    assertInstanceOf(LogIOException.class, outcome.error);
    assertThrows(LogIOException.class, () -> append(log, 2, "b"));
    assertThrows(LogIOException.class, () -> log.awaitDurable(p));
    // Close says so too: the log could not make what it holds durable.
    assertThrows(LogFailedException.class, log::close);
    // A reopen recovers what reached the file.
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      assertEquals(List.of("creates the segment", "a"), TestLogs.values(TestLogs.readAll(reopened)));
    }
  }

  @Test
  void closeCompletesPendingFuturesAndLaterRequestsFailFast() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings =
        LogSettings.defaults().withAppendMode(mode).withFileSystem(fs).withDurability(Durability.FSYNC);
    TransactionLog log = TransactionLog.open(dir, settings);
    CountDownLatch forceStarted = new CountDownLatch(1);
    CountDownLatch releaseForce = new CountDownLatch(1);
    long a = append(log, 1, "a");
    fs.beforeForce(() -> {
      forceStarted.countDown();
      awaitUninterruptibly(releaseForce);
    });
    CompletableFuture<Void> first = log.whenDurable(a);
    forceStarted.await();
    long b = append(log, 2, "b"); // written while the force is held: needs another force
    CompletableFuture<Void> second = log.whenDurable(b);
    Thread closer = new Thread(log::close, "closer");
    closer.start();
    releaseForce.countDown();
    closer.join();
    fs.beforeForce(null);
    assertTrue(first.isDone() && second.isDone(), "close never leaves a future pending");
    assertNull(outcome(first).error);
    assertNull(outcome(second).error, "the final force at close covers b");
    assertTrue(log.whenDurable(a).isDone());
    assertThrows(LogClosedException.class, () -> append(log, 3, "c"));
    log.close(); // idempotent
  }

  @Test
  void processAndNoneDurabilityReturnCompletedFutures() {
    for (Durability d : new Durability[] {Durability.NONE, Durability.PROCESS}) {
      try (TransactionLog log =
          TransactionLog.open(dir.resolve(d.name()), LogSettings.defaults().withAppendMode(mode).withDurability(d))) {
        long p = append(log, 1, "a");
        assertTrue(log.whenDurable(p).isDone());
        log.awaitDurable(p);
        assertEquals(0, log.stats().fsyncs());
      }
    }
  }

  @Test
  void theForceThreadIsNamedAfterTheLog() throws Exception {
    LogSettings settings = LogSettings.defaults().withAppendMode(mode).withDurability(Durability.FSYNC);
    try (TransactionLog log = TransactionLog.open(dir.resolve("orders"), settings)) {
      long p = append(log, 1, "a");
      String thread = log.whenDurable(p)
          .thenApply(v -> Thread.currentThread().getName())
          .get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
      // Either the forcing thread completed it, or it was already durable (then the caller runs it).
      assertTrue(thread.equals(forcingThreadPrefix() + "orders")
          || thread.equals(Thread.currentThread().getName()), thread);
    }
  }

  /** The thread that forces: the force thread, or in ACTOR mode the log's writer (its own thread here). */
  private String forcingThreadPrefix() {
    return mode == AppendMode.ACTOR ? "commitlane-txlog-writer-" : "commitlane-txlog-fsync-";
  }

  private record ExecutionOutcome(Throwable error) {}

  private static ExecutionOutcome outcome(CompletableFuture<Void> future) {
    try {
      future.join();
      return new ExecutionOutcome(null);
    } catch (CompletionException e) {
      return new ExecutionOutcome(e.getCause());
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    while (true) {
      try {
        latch.await();
        return;
      } catch (InterruptedException e) {
        // keep waiting; the test releases it
      }
    }
  }
}
