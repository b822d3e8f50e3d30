package io.commitlane.txlog;

import io.commitlane.txlog.internal.append.LogWriterHost;
import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only the actor append mode has: committing threads only queue; one writer writes each
 * batch with one write, forces it once, finishes it and completes the acknowledgements; its turns
 * run on a host; an I/O error stops the log. Most tests drive the writer by hand through a host
 * that only counts wake-ups, so every schedule is fixed.
 */
class ActorAppendTest {
  private static final long HANG_GUARD_SECONDS = 60;

  @TempDir Path dir;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  /** A host that runs nothing: the test runs the writer's turns itself. */
  private static final class ManualHost implements LogWriterHost {
    final AtomicInteger wakes = new AtomicInteger();

    @Override
    public void wake(TransactionLog log) {
      wakes.incrementAndGet();
    }
  }

  private static LogSettings actor(FaultInjectingFileSystem fs) {
    return LogSettings.defaults().withAppendMode(AppendMode.ACTOR).withFileSystem(fs);
  }

  @Test
  void committingThreadsOnlyQueueAndTheWriterWritesTheWholeBatchWithOneWrite() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    ManualHost host = new ManualHost();
    try (TransactionLog log = TransactionLog.open(dir, actor(fs))) {
      log.hostWriter(host);
      log.finish(append(log, 0, "opens the segment"), () -> 0);
      long writes = fs.writeCount();
      List<Long> positions = new ArrayList<>();
      for (int i = 1; i <= 10; i++) {
        positions.add(append(log, i, "r" + i));
      }
      assertEquals(writes, fs.writeCount(), "an append writes nothing");
      assertEquals(0, host.wakes.get(), "an append does not even wake the writer: its finish will");
      List<CompletableFuture<Void>> acks = new ArrayList<>();
      for (long p : positions) {
        acks.add(log.finishAsync(p, () -> 1));
      }
      assertEquals(1, host.wakes.get(), "one wake-up for the batch: the writer stays scheduled");
      assertEquals(writes, fs.writeCount(), "a queued finish writes nothing either");
      assertTrue(acks.stream().noneMatch(CompletableFuture::isDone));

      assertFalse(log.writeQueued(), "one turn takes everything queued");
      assertEquals(writes + 1, fs.writeCount(), "ten records, one write");
      assertTrue(acks.stream().allMatch(a -> a.isDone() && !a.isCompletedExceptionally()));
      assertEquals(0, log.stats().uncommittedCount());
      List<String> expected = new ArrayList<>(List.of("opens the segment"));
      for (int i = 1; i <= 10; i++) {
        expected.add("r" + i);
      }
      assertEquals(expected, values(readAll(log)));
    }
  }

  @Test
  void anAcknowledgementWaitsForTheFinishAndUnderFsyncForTheOneForceOfItsBatch() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    ManualHost host = new ManualHost();
    try (TransactionLog log = TransactionLog.open(dir, actor(fs).withDurability(Durability.FSYNC))) {
      log.hostWriter(host);
      log.finish(append(log, 0, "opens the segment"), () -> 0);
      long forces = fs.forceCount();
      long p1 = append(log, 1, "a");
      long p2 = append(log, 2, "b");
      long p3 = append(log, 3, "c");
      CompletableFuture<Void> ack1 = log.finishAsync(p1, () -> 1);
      CompletableFuture<Void> ack3 = log.finishAsync(p3, () -> 1);
      assertFalse(log.writeQueued());
      assertEquals(forces + 1, fs.forceCount(), "three records written, one force");
      assertTrue(ack1.isDone() && ack3.isDone());
      assertEquals(p2, log.committedWatermark(), "b has not finished: its RocksDB write has not returned");

      CompletableFuture<Void> ack2 = log.finishAsync(p2, () -> 2);
      assertFalse(ack2.isDone(), "queued, not finished");
      assertFalse(log.writeQueued());
      assertTrue(ack2.isDone() && !ack2.isCompletedExceptionally());
      assertEquals(forces + 1, fs.forceCount(), "b was forced with its batch: no second force");
      assertTrue(log.committedWatermark() > p3);

      long p4 = append(log, 4, "d");
      log.finish(p4, () -> 3);
      assertEquals(forces + 1, fs.forceCount(), "a blocking finish asks for no force");
      CompletableFuture<Void> durable = log.whenDurable(p4);
      assertFalse(durable.isDone());
      assertFalse(log.writeQueued());
      assertTrue(durable.isDone());
      assertEquals(forces + 2, fs.forceCount());
      assertEquals(log.committedWatermark(), log.stats().durablePosition());
    }
  }

  @Test
  void aFailedBatchWriteFailsItsAcknowledgementsAndStopsTheLog() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    ManualHost host = new ManualHost();
    LogSettings settings = actor(fs);
    TransactionLog log = TransactionLog.open(dir, settings);
    log.hostWriter(host);
    long kept = append(log, 1, "kept");
    log.finish(kept, () -> 1);
    long lost = append(log, 2, "lost");
    long other = append(log, 3, "claimed by someone else");
    CompletableFuture<Void> lostAck = log.finishAsync(lost, () -> 2);
    fs.failNextWrite();
    assertFalse(log.writeQueued());
    assertInstanceOf(LogFailedException.class, cause(lostAck));
    assertTrue(cause(lostAck).getMessage().contains("reopen the database"), cause(lostAck).getMessage());
    // Every later call fails the same way: nothing the log cannot vouch for is acknowledged.
    assertInstanceOf(LogFailedException.class, cause(log.finishAsync(other, () -> 3)));
    assertThrows(LogFailedException.class, () -> log.finish(other, () -> 3));
    assertThrows(LogFailedException.class, () -> append(log, 4, "after"));
    assertThrows(LogFailedException.class, () -> log.abort(other));
    assertTrue(log.committedWatermark() <= lost);
    assertThrows(LogFailedException.class, log::close, "close reports that claimed records never reached the file");
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      assertEquals(List.of("kept"), values(readAll(reopened)));
      long p = append(reopened, 5, "again");
      reopened.finish(p, () -> 5);
      assertEquals(List.of("kept", "again"), values(readAll(reopened)));
    }
  }

  @Test
  void aFailedForceFailsTheAcknowledgementsOfItsBatchAndStopsTheLog() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    ManualHost host = new ManualHost();
    LogSettings settings = actor(fs).withDurability(Durability.FSYNC);
    TransactionLog log = TransactionLog.open(dir, settings);
    log.hostWriter(host);
    long first = append(log, 1, "forced");
    log.finishAsync(first, () -> 1);
    assertFalse(log.writeQueued());
    long p = append(log, 2, "written, not forced");
    CompletableFuture<Void> ack = log.finishAsync(p, () -> 2);
    fs.failNextForce();
    assertFalse(log.writeQueued());
    assertInstanceOf(LogFailedException.class, cause(ack));
    assertTrue(log.committedWatermark() <= p, "the watermark never passes a record the log cannot vouch for");
    assertThrows(LogFailedException.class, () -> append(log, 3, "after"));
    assertInstanceOf(LogIOException.class, cause(log.whenDurable(p)));
    assertThrows(LogFailedException.class, log::close);
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      assertEquals("forced", values(readAll(reopened)).get(0));
    }
  }

  @Test
  void aSegmentThatCannotBeCreatedStopsTheLogAndWhatCameBeforeSurvives() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    ManualHost host = new ManualHost();
    LogSettings settings = actor(fs).withMaxSegmentBytes(4096);
    TransactionLog log = TransactionLog.open(dir, settings);
    log.hostWriter(host);
    List<String> acknowledged = new ArrayList<>();
    String big = "x".repeat(600); // about 1.3 KiB a frame: three to a segment
    for (int i = 0; ; i++) {
      long p = append(log, i, "r" + i + big);
      CompletableFuture<Void> ack = log.finishAsync(p, () -> 1);
      if (LogPosition.segment(p) == 1) {
        // The next record goes to segment 1, which the writer creates: the disk is full.
        fs.failNextCreate();
        assertFalse(log.writeQueued());
        assertInstanceOf(LogFailedException.class, cause(ack));
        break;
      }
      assertFalse(log.writeQueued());
      ack.join();
      acknowledged.add("r" + i + big);
    }
    assertTrue(acknowledged.size() >= 2, acknowledged.size() + " records fit in segment 0");
    assertThrows(LogFailedException.class, () -> append(log, 99, "after"));
    assertThrows(LogFailedException.class, log::close);
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      assertEquals(acknowledged, values(readAll(reopened)));
      assertTrue(reopened.damage().isEmpty(), reopened.damage().toString());
      long p = append(reopened, 100, "again");
      reopened.finish(p, () -> 1);
    }
  }

  @Test
  void theWriterMovesBetweenHostsWithoutLosingAWakeUp() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Set<String> writers = ConcurrentHashMap.newKeySet();
    ManualHost host = new ManualHost();
    try (TransactionLog log = TransactionLog.open(dir, actor(fs).withName("orders"))) {
      log.hostWriter(host);
      long p = append(log, 1, "a");
      CompletableFuture<Void> ack = log.finishAsync(p, () -> 1);
      assertEquals(1, host.wakes.get(), "the host took the wake-up (and, say, stopped before running it)");
      fs.beforeWrite(() -> writers.add(Thread.currentThread().getName()));
      log.hostWriter(null); // the host hands back: the pending turn goes to the log's own thread
      ack.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
      assertEquals(Set.of("commitlane-txlog-writer-orders"), writers);
      long q = append(log, 2, "b");
      log.finishAsync(q, () -> 2).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
      assertEquals(1, host.wakes.get(), "the old host hears of nothing more");
      assertEquals(List.of("a", "b"), values(readAll(log)));
    }
  }

  @Test
  void abortingAPositionThatIsNotAwaitingFinishIsRefusedAndHarmless() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = actor(fs);
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      log.hostWriter(new ManualHost());
      long a = append(log, 1, "a");
      long b = append(log, 2, "b");
      log.finish(a, () -> 1);
      assertThrows(IllegalStateException.class, () -> log.abort(a), "finished");
      assertThrows(IllegalStateException.class, () -> log.abort(b + 1), "never appended");
      assertThrows(IllegalStateException.class, () -> log.finish(a, () -> 1), "finished twice");
      log.abort(b);
      assertThrows(IllegalStateException.class, () -> log.abort(b), "aborted twice");
      long c = append(log, 3, "c");
      log.finish(c, () -> 2);
      assertEquals(List.of("a", "c"), values(readAll(log)));
    }
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      assertEquals(List.of("a", "c"), values(readAll(reopened)), "a refused abort's marker names itself: a stays");
      assertTrue(reopened.corruptFrames().isEmpty());
    }
  }

  @Test
  void closeWritesWhatIsQueuedAndSettlesEveryAcknowledgement() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = actor(fs).withDurability(Durability.FSYNC);
    TransactionLog log = TransactionLog.open(dir, settings);
    log.hostWriter(new ManualHost()); // never runs a turn: close must
    long a = append(log, 1, "a");
    long b = append(log, 2, "b");
    long c = append(log, 3, "unfinished");
    CompletableFuture<Void> ackA = log.finishAsync(a, () -> 1);
    CompletableFuture<Void> ackB = log.finishAsync(b, () -> 1);
    CompletableFuture<Void> durableC = log.whenDurable(c);
    log.close();
    assertTrue(ackA.isDone() && ackB.isDone() && durableC.isDone());
    assertNull(cause(ackA));
    assertNull(cause(durableC));
    assertInstanceOf(LogClosedException.class, cause(log.finishAsync(c, () -> 2)));
    assertThrows(LogClosedException.class, () -> append(log, 4, "after"));
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      assertEquals(List.of("a", "b", "unfinished"), values(readAll(reopened)), "recovered records count as committed");
    }
  }

  /**
   * A finish queued while the writer samples RocksDB's sequence is not claimed by that sample. p0
   * &lt; p1 &lt; p2: p0 and p2 finish at sequence 10; while the writer samples for their batch,
   * p1's write returns at 11 and its finish is queued. The batch's pair may only claim p0 (the
   * watermark stops at p1); had the writer sampled before it had taken the whole batch off the
   * queue, or taken p1's finish into the batch after sampling, a pair (end, 10) would let a flush
   * at 10 pass p1, whose data is at 11.
   */
  @Test
  void aFinishQueuedWhileTheWriterSamplesIsNotCoveredByThatSample() {
    try (TransactionLog log = TransactionLog.open(dir, actor(new FaultInjectingFileSystem()))) {
      log.hostWriter(new ManualHost());
      long p0 = append(log, 0, "a");
      long p1 = append(log, 1, "b");
      long p2 = append(log, 2, "c");
      assertFalse(log.writeQueued());
      AtomicLong latest = new AtomicLong(10);
      List<CompletableFuture<Void>> p1Ack = new ArrayList<>();
      // Whichever finish the writer samples with, p1's write returns and its finish is queued
      // right after the first sample is read.
      LongSupplier sampler = () -> {
        long sampled = latest.get();
        if (p1Ack.isEmpty()) {
          latest.set(11);
          p1Ack.add(log.finishAsync(p1, latest::get));
        }
        return sampled;
      };
      CompletableFuture<Void> ack0 = log.finishAsync(p0, sampler);
      CompletableFuture<Void> ack2 = log.finishAsync(p2, sampler);
      assertTrue(log.writeQueued(), "p1's finish arrived during the batch: another turn is due");
      assertTrue(ack0.isDone() && ack2.isDone());
      assertEquals(p1, log.committedWatermark());
      assertFalse(p1Ack.get(0).isDone(), "p1's finish waits for the next batch");
      assertFalse(log.writeQueued());
      assertTrue(p1Ack.get(0).isDone());

      for (long[] pair : log.flushCorrelationPairs()) {
        if (pair[0] > p1) {
          assertTrue(pair[1] >= 11, "pair (" + LogPosition.toString(pair[0]) + ", " + pair[1]
              + ") claims p1, whose write is at sequence 11");
        }
      }
      log.onFlushCompleted(10);
      assertEquals(p1, log.flushedPosition(), "a flush at 10 holds p0, not p1");
      log.onFlushCompleted(11);
      assertEquals(log.committedWatermark(), log.flushedPosition());
    }
  }

  @Test
  void aFlushEventIsHandledBetweenBatchesAndClaimsOnlyWhatTheWriterFinished() {
    try (TransactionLog log = TransactionLog.open(dir, actor(new FaultInjectingFileSystem()))) {
      log.hostWriter(new ManualHost());
      long p = append(log, 1, "a");
      log.finishAsync(p, () -> 5); // its RocksDB write is at 5, but the writer has not run yet
      log.onFlushCompleted(5);
      assertEquals(LogPosition.START, log.flushedPosition(), "nothing finished yet: the flush claims nothing");
      assertFalse(log.writeQueued());
      log.onFlushCompleted(5);
      assertEquals(log.committedWatermark(), log.flushedPosition());
    }
  }

  @Test
  void concurrentCommittersAcrossBatchesSegmentsAndOversizeRecordsReadBackInPositionOrder() throws Exception {
    // 8 KiB segments and 4 KiB batches: records of 40..5000 bytes fill batches and segments often,
    // and the largest frames exceed a batch (written on their own).
    LogSettings settings = LogSettings.defaults().withAppendMode(AppendMode.ACTOR).withMaxSegmentBytes(8192)
        .withAppendBufferBytes(4096);
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
          List<CompletableFuture<Void>> acks = new ArrayList<>();
          for (int i = 0; i < perCommitter; i++) {
            String value = committer + "-" + i + "-" + "x".repeat((i * 37 + committer * 101) % 5000);
            long p = log.append(committer * 1_000_000L + i, i, List.of(TestLogs.bytes(value)), null);
            mine.add(p);
            if (i % 7 == 3) {
              log.abort(p);
            } else {
              acks.add(log.finishAsync(p, () -> 0));
            }
          }
          CompletableFuture.allOf(acks.toArray(new CompletableFuture<?>[0])).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
          return mine;
        }));
      }
      for (Future<List<Long>> f : results) {
        positions.add(f.get());
      }
      assertEquals((long) committers * perCommitter, log.stats().recordsWritten());
      assertEquals(0, log.stats().uncommittedCount());
    }
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      List<LogRecord> records = readAll(reopened);
      assertEquals(committers * (perCommitter - countAborted(perCommitter)), records.size());
      assertTrue(reopened.corruptFrames().isEmpty());
      assertTrue(reopened.damage().isEmpty(), reopened.damage().toString());
      List<Long> filePositions = new ArrayList<>();
      int[] next = new int[committers];
      for (LogRecord r : records) {
        filePositions.add(r.position());
        int committer = (int) (r.transactionId() / 1_000_000L);
        int i = (int) (r.transactionId() % 1_000_000L);
        while (next[committer] % 7 == 3) {
          next[committer]++;
        }
        assertEquals(next[committer], i, "each committer's records come back in its own order");
        assertEquals(positions.get(committer).get(i), r.position(), "at the positions it was given");
        next[committer]++;
      }
      List<Long> sorted = new ArrayList<>(filePositions);
      Collections.sort(sorted);
      assertEquals(sorted, filePositions, "file order is position order");
      assertTrue(LogPosition.segment(filePositions.get(filePositions.size() - 1)) > 10,
          "the run crossed many segment switches");
    }
  }

  @Test
  void aSamplerThatCallsBackIntoItsLogIsRefusedClearly() {
    try (TransactionLog log = TransactionLog.open(dir, actor(new FaultInjectingFileSystem()))) {
      long p = append(log, 1, "a");
      long q = append(log, 2, "b");
      List<Throwable> refused = new ArrayList<>();
      log.finish(p, () -> {
        try {
          log.finish(q, () -> 0);
        } catch (IllegalStateException e) {
          refused.add(e);
        }
        return 0;
      });
      assertEquals(1, refused.size());
      assertTrue(refused.get(0).getMessage().contains("own writer"), refused.get(0).getMessage());
      log.finish(q, () -> 0);
      assertEquals(List.of("a", "b"), values(readAll(log)));
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

  /** How the future failed, or null if it succeeded; it must be done. */
  private static Throwable cause(CompletableFuture<Void> f) {
    assertTrue(f.isDone());
    try {
      f.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause();
    }
  }
}
