package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The flush-correlation race as forced schedules: the sequence paired with a committed prefix must be read
 * after the finishing position left the uncommitted set, under the same lock. Each test fails if
 * {@code finish} samples first.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class FlushCorrelationRaceTest {
  @Parameter AppendMode mode;

  @TempDir Path dir;

  /**
   * p1 &lt; p2. p2's writer commits at sequence 10 and finishes; p2's sampler reads 10 and, before
   * it returns, p1's writer commits at sequence 11 and tries to finish. A flush at 10 holds p2's
   * data but not p1's, so the flushed position must not pass p1.
   *
   * <p>With the sampler called under the lock after removal (correct), p1's finish blocks until
   * p2's finish is done: p2 records no pair (the watermark stays at p1), p1 records (end, 11), and
   * a flush at 10 moves nothing. With the sampler called before the lock (the bug), p1 finishes
   * completely inside p2's sampling window, then p2 records (end, 10), and a flush at 10 jumps
   * past p1. The test checks the recorded pairs themselves, because the flush lookup stops at the
   * first pair newer than the flush and would hide the bad pair in this exact schedule.
   */
  @Test
  void flushAtTheLaterPositionsSampleNeverPassesAnEarlierPositionThatCommittedLater() {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      long p1 = append(log, 1, "earlier position, later sequence");
      long p2 = append(log, 2, "later position, earlier sequence");
      AtomicLong latestSequence = new AtomicLong(9);
      AtomicReference<Throwable> p1Failure = new AtomicReference<>();

      latestSequence.set(10); // p2's RocksDB write
      log.finish(p2, () -> {
        long sampled = latestSequence.get();
        // Inside the sampling window: p1's writer commits at 11 and calls finish.
        Thread p1Writer = new Thread(() -> {
          try {
            latestSequence.set(11);
            log.finish(p1, latestSequence::get);
          } catch (Throwable t) {
            p1Failure.set(t);
          }
        }, "p1-writer");
        p1Writer.start();
        awaitBlockedOrDone(p1Writer);
        return sampled;
      });
      awaitCommitted(log, p1);
      assertEquals(null, p1Failure.get());

      // Every recorded pair that claims p1 (prefix above it) must carry p1's sequence or later.
      for (long[] pair : log.flushCorrelationPairs()) {
        if (pair[0] > p1) {
          assertTrue(pair[1] >= 11, "pair (" + LogPosition.toString(pair[0]) + ", " + pair[1]
              + ") claims p1, whose write is at sequence 11");
        }
      }

      log.onFlushCompleted(10);
      assertTrue(log.flushedPosition() <= p1, "flushed position "
          + LogPosition.toString(log.flushedPosition()) + " passed p1 "
          + LogPosition.toString(p1) + ", whose data is at sequence 11");

      log.onFlushCompleted(11);
      assertEquals(log.committedWatermark(), log.flushedPosition(), "a flush at 11 holds both");
    }
  }

  /** The same invariant observed from inside the sampler: the finishing position is gone. */
  @Test
  void samplerRunsAfterThePositionLeftTheUncommittedSet() {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      long p1 = append(log, 1, "a");
      long p2 = append(log, 2, "b");
      int[] uncommittedAtSample = new int[2];
      long[] watermarkAtSample = new long[2];
      log.finish(p2, () -> {
        uncommittedAtSample[0] = log.stats().uncommittedCount();
        watermarkAtSample[0] = log.committedWatermark();
        return 10;
      });
      log.finish(p1, () -> {
        uncommittedAtSample[1] = log.stats().uncommittedCount();
        watermarkAtSample[1] = log.committedWatermark();
        return 11;
      });
      assertEquals(1, uncommittedAtSample[0], "p2 must have left the set before its sample");
      assertEquals(p1, watermarkAtSample[0]);
      assertEquals(0, uncommittedAtSample[1], "p1 must have left the set before its sample");
      assertTrue(watermarkAtSample[1] > p2, "the watermark already covers both at p1's sample");

      log.onFlushCompleted(10);
      assertTrue(log.flushedPosition() <= p1);
    }
  }

  /** A pair is only recorded with a sample taken after every position below it finished. */
  @Test
  void pairsClaimOnlyPositionsThatFinishedBeforeTheSample() {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      long p1 = append(log, 1, "a");
      long p2 = append(log, 2, "b");
      long p3 = append(log, 3, "c");
      log.finish(p1, () -> 5); // pair (p2, 5)
      log.finish(p3, () -> 7); // watermark stays at p2: no pair
      log.finish(p2, () -> 9); // pair (end, 9)
      log.onFlushCompleted(8);
      assertEquals(p2, log.flushedPosition(), "a flush at 8 holds p1 (5) but not p2 (9)");
      log.onFlushCompleted(7);
      assertEquals(p2, log.flushedPosition(), "never moves backwards");
      log.onFlushCompleted(9);
      assertEquals(log.committedWatermark(), log.flushedPosition());
      assertFalse(log.flushedPosition() < p3);
    }
  }

  /** Waits (without sleeping) until the thread parks on a lock or terminates. */
  private static void awaitBlockedOrDone(Thread t) {
    while (true) {
      Thread.State state = t.getState();
      if (state == Thread.State.TERMINATED) {
        return;
      }
      if ((state == Thread.State.WAITING || state == Thread.State.BLOCKED)
          && LockSupport.getBlocker(t) != null) {
        return;
      }
      Thread.onSpinWait();
    }
  }

  private static void awaitCommitted(TransactionLog log, long position) {
    CompletableFuture<Void> committed = log.whenCommittedBeyond(position);
    committed.join();
  }
}
