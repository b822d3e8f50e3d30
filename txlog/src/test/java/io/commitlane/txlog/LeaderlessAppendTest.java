package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What only the leaderless append mode has: ping-pong syncs, collapsing, fail-stop, limits. */
class LeaderlessAppendTest {
  @TempDir Path dir;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  private static LogSettings leaderless() {
    return LogSettings.defaults().withAppendMode(AppendMode.LEADERLESS);
  }

  @Test
  void concurrentCommittersAcrossBufferSwapsRotationsAndOversizeRecordsReadBackInPositionOrder()
      throws Exception {
    // 4 KiB segments and buffers: records of 40..1500 bytes fill buffers and segments often, and
    // the largest frames exceed a buffer (the oversize path).
    LogSettings settings = leaderless().withMaxSegmentBytes(8192).withAppendBufferBytes(4096);
    int committers = 4;
    int perCommitter = 300;
    List<List<Long>> positions = new ArrayList<>();
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      CyclicBarrier start = new CyclicBarrier(committers);
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int c = 0; c < committers; c++) {
        int committer = c;
        results.add(threads.submit(() -> {
          start.await();
          List<Long> mine = new ArrayList<>();
          for (int i = 0; i < perCommitter; i++) {
            String value = committer + "-" + i + "-" + "x".repeat((i * 37 + committer * 101) % 4200);
            long p = log.append(committer * 1_000_000L + i, i, List.of(TestLogs.bytes(value)), null);
            mine.add(p);
            if (i % 7 == 3) {
              log.abort(p);
            } else {
              log.finish(p, () -> 0);
            }
          }
          return mine;
        }));
      }
      for (Future<List<Long>> f : results) {
        positions.add(f.get());
      }
      assertEquals(log.stats().recordsWritten(), (long) committers * perCommitter
          + (long) committers * countAborted(perCommitter));
    }
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      List<LogRecord> records = readAll(reopened);
      assertEquals(committers * (perCommitter - countAborted(perCommitter)), records.size());
      assertTrue(reopened.corruptFrames().isEmpty());
      List<Long> filePositions = new ArrayList<>();
      List<Long> expected = new ArrayList<>();
      int[] next = new int[committers];
      for (LogRecord r : records) {
        filePositions.add(r.position());
        int committer = (int) (r.transactionId() / 1_000_000L);
        int i = (int) (r.transactionId() % 1_000_000L);
        // Each committer's records come back in its own order, at the positions it was given.
        while (next[committer] % 7 == 3) {
          next[committer]++;
        }
        assertEquals(next[committer], i);
        assertEquals(positions.get(committer).get(i), r.position());
        next[committer]++;
      }
      expected.addAll(filePositions);
      Collections.sort(expected);
      assertEquals(expected, filePositions, "file order is position order");
      assertTrue(LogPosition.segment(filePositions.get(filePositions.size() - 1)) > 10,
          "the run crossed many segment switches");
    }
  }

  private static int countAborted(int n) {
    int a = 0;
    for (int i = 0; i < n; i++) {
      if (i % 7 == 3) {
        a++;
      }
    }
    return a;
  }

  @Test
  void appendsGoOnWhileASyncWritesAndAWaitingSyncCoveredByItDoesNoIo() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    try (TransactionLog log = TransactionLog.open(dir, leaderless().withFileSystem(fs))) {
      append(log, 0, "opens the segment");
      log.finish(LogPosition.of(0, SegmentHeader.BYTES), () -> 0);
      long a = append(log, 1, "a");
      long b = append(log, 2, "b");
      CountDownLatch writing = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      fs.beforeWrite(() -> {
        writing.countDown();
        await(release);
      });
      long writesBefore = fs.writeCount();
      Future<?> finishA = threads.submit(() -> log.finish(a, () -> 1));
      writing.await(); // A's sync swapped buffers and is inside its write
      fs.beforeWrite(null);
      // The claim lock is free during that write: a new record goes into the other buffer.
      long c = append(log, 3, "c");
      assertTrue(c > b);
      Thread finisherB = new Thread(() -> log.finish(b, () -> 2));
      finisherB.start();
      while (finisherB.getState() != Thread.State.WAITING) {
        Thread.onSpinWait(); // parked on the sync lock behind A's write
      }
      release.countDown();
      finishA.get();
      finisherB.join();
      assertEquals(1, fs.writeCount() - writesBefore,
          "B's record was in the buffer A's sync wrote: B's sync collapsed into it");
      assertEquals(c, log.committedWatermark());
      log.finish(c, () -> 3);
      assertEquals(List.of("opens the segment", "a", "b", "c"), values(readAll(log)));
    }
  }

  @Test
  void anIoErrorAfterClaimsStopsTheLogForGoodAndReopenRecovers() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = leaderless().withFileSystem(fs);
    TransactionLog log = TransactionLog.open(dir, settings);
    long kept = append(log, 1, "kept");
    log.finish(kept, () -> 1);
    long lost = append(log, 2, "lost");
    long other = append(log, 3, "claimed by someone else");
    fs.failNextWrite();
    LogFailedException failed = assertThrows(LogFailedException.class, () -> log.finish(lost, () -> 2));
    assertTrue(failed.getMessage().contains("reopen the database"), failed.getMessage());
    // Every later call fails the same way: nothing the log cannot vouch for is acknowledged.
    assertThrows(LogFailedException.class, () -> log.finish(other, () -> 3));
    assertThrows(LogFailedException.class, () -> append(log, 4, "after"));
    assertThrows(LogFailedException.class, () -> log.abort(other));
    assertInstanceOf(LogIOException.class, failed, "callers that catch LogIOException see it too");
    assertEquals(kept + frameBytes(log, kept), log.committedWatermark());
    assertThrows(LogFailedException.class, log::close, "close reports that claimed records never reached the file");
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      assertEquals(List.of("kept"), values(readAll(reopened)));
      long p = append(reopened, 5, "again");
      reopened.finish(p, () -> 5);
      assertEquals(List.of("kept", "again"), values(readAll(reopened)));
    }
  }

  @Test
  void aFailedFsyncStopsTheLogAndFailsEveryWaiter() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = leaderless().withFileSystem(fs).withDurability(Durability.FSYNC);
    TransactionLog log = TransactionLog.open(dir, settings);
    long p = append(log, 1, "a");
    log.finish(p, () -> 1);
    fs.failNextForce();
    CompletableFuture<Void> durable = log.whenDurable(p);
    ExecutionException e = assertThrows(ExecutionException.class, durable::get);
    assertInstanceOf(LogIOException.class, e.getCause());
    assertThrows(LogIOException.class, () -> append(log, 2, "b"));
    assertThrows(LogFailedException.class, log::close);
  }

  @Test
  void anAppendAFullRingBehindTheOldestUnfinishedRecordFailsClearlyAndAppendsNothing() {
    LogSettings settings = leaderless().withCompletionRingSlots(16).withCompletionRingWait(Duration.ZERO);
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      List<Long> open = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        open.add(append(log, i, "r" + i));
      }
      UnfinishedLimitException e =
          assertThrows(UnfinishedLimitException.class, () -> append(log, 99, "one too many"));
      assertTrue(e.getMessage().contains("16"), e.getMessage());
      log.finish(open.get(0), () -> 0);
      long p = append(log, 16, "r16");
      for (long q : open.subList(1, open.size())) {
        log.finish(q, () -> 0);
      }
      log.finish(p, () -> 0);
      List<String> expected = new ArrayList<>();
      for (int i = 0; i <= 16; i++) {
        expected.add("r" + i);
      }
      assertEquals(expected, values(readAll(log)));
    }
  }

  @Test
  void finishingTwiceOrAnUnknownPositionIsRefused() {
    try (TransactionLog log = TransactionLog.open(dir, leaderless())) {
      long p = append(log, 1, "a");
      long q = append(log, 2, "b");
      log.finish(q, () -> 1);
      assertThrows(IllegalStateException.class, () -> log.finish(q, () -> 1), "finished, not passed");
      log.finish(p, () -> 1);
      assertThrows(IllegalStateException.class, () -> log.finish(p, () -> 1), "passed");
      assertThrows(IllegalStateException.class, () -> log.finish(p + 1, () -> 1), "never appended");
      assertFalse(log.isClosed());
    }
  }

  private static long frameBytes(TransactionLog log, long position) {
    try (LogReader r = log.reader(ReadRequest.fromPosition(position))) {
      r.next();
      return LogPosition.offset(r.position()) - LogPosition.offset(position);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
