package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Readers see a record only once it and every earlier record finished (invariant 7). */
@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class WatermarkTest {
  @Parameter AppendMode mode;

  @TempDir Path dir;

  @Test
  void outOfOrderFinishesNeverExposeALaterRecordFirst() {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      long p1 = append(log, 1, "a");
      long p2 = append(log, 2, "b");
      long p3 = append(log, 3, "c");
      // Reading the uncommitted records makes sure their segment exists (a tail registered before
      // the first segment exists may wake early, as whenMoreCommitted allows).
      assertEquals(3, readAll(log, ReadRequest.fromStart().includeUncommitted(true)).size());
      LogReader tail = log.reader(ReadRequest.fromStart());
      CompletableFuture<Void> beyondP1 = tail.whenMoreCommitted();

      assertEquals(p1, log.finish(p3, () -> 1));
      assertEquals(p1, log.finish(p2, () -> 2));
      assertNull(tail.next(), "p2 and p3 finished, but p1 has not");
      assertEquals(List.of(), readAll(log));
      assertFalse(beyondP1.isDone());
      assertEquals(List.of("a", "b", "c"),
          values(readAll(log, ReadRequest.fromStart().includeUncommitted(true))));

      long end = log.finish(p1, () -> 3);
      assertTrue(beyondP1.isDone(), "the tail is woken when the watermark passes it");
      assertEquals(log.committedWatermark(), end);
      assertTrue(end > p3);
      assertEquals(List.of("a", "b", "c"), values(List.of(tail.next(), tail.next(), tail.next())));
      assertNull(tail.next());

      // The same reader sees later commits when called again.
      long p4 = append(log, 4, "d");
      assertNull(tail.next());
      CompletableFuture<Void> more = tail.whenMoreCommitted();
      assertFalse(more.isDone());
      log.finish(p4, () -> 4);
      assertTrue(more.isDone());
      assertEquals("d", TestLogs.text(tail.next().entries().get(0)));
      tail.close();
    }
  }

  @Test
  void abortedRecordsAreInvisibleAndReplaySkipsThem() {
    List<Long> positions = new ArrayList<>();
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      for (String v : List.of("a", "aborted", "c")) {
        positions.add(append(log, positions.size(), v));
      }
      log.finish(positions.get(2), () -> 1);
      log.abort(positions.get(1));
      assertThrows(IllegalStateException.class, () -> log.abort(positions.get(1)));
      assertThrows(IllegalStateException.class, () -> log.finish(positions.get(1), () -> 2));
      assertEquals(List.of(), readAll(log));
      log.finish(positions.get(0), () -> 2);
      assertEquals(List.of("a", "c"), values(readAll(log)));
      assertEquals(List.of("a", "c"),
          values(readAll(log, ReadRequest.fromStart().includeUncommitted(true))));
      assertEquals(0, log.stats().uncommittedCount());
      assertEquals(1, log.stats().abortedRecords());
    }
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      assertEquals(List.of("a", "c"), values(readAll(log)), "the abort marker survives reopen");
      List<String> replayed = new ArrayList<>();
      log.replay(r -> replayed.add(TestLogs.text(r.entries().get(0))));
      assertEquals(List.of("a", "c"), replayed);
    }
  }

  @Test
  void finishingAnUnknownPositionIsAnError() {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      long p = append(log, 1, "a");
      log.finish(p, () -> 1);
      assertThrows(IllegalStateException.class, () -> log.finish(p, () -> 1));
      assertThrows(IllegalStateException.class, () -> log.finish(p + 1, () -> 1));
    }
  }

  /**
   * Four writers append and finish in shuffled order while a reader tails the log; every record
   * the reader returns must already have finished, and records come in position order.
   */
  @Test
  void concurrentWritersAndATailingReaderNeverSeeAnUnfinishedRecord() throws Exception {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      Set<Long> finished = ConcurrentHashMap.newKeySet();
      int writers = 4;
      int perWriter = 2000;
      CountDownLatch start = new CountDownLatch(1);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int seed = w;
        threads.add(new Thread(() -> {
          try {
            start.await();
            Random random = new Random(seed);
            List<Long> pending = new ArrayList<>();
            for (int i = 0; i < perWriter; i++) {
              pending.add(append(log, seed * 100_000L + i, "v"));
              if (pending.size() >= 8 || i == perWriter - 1) {
                Collections.shuffle(pending, random);
                for (long p : pending) {
                  finished.add(p); // before finish: the reader may see it right after
                  log.finish(p, () -> 0);
                }
                pending.clear();
              }
            }
          } catch (Throwable t) {
            failure.compareAndSet(null, t);
          }
        }));
      }
      threads.forEach(Thread::start);
      start.countDown();
      int seen = 0;
      long last = -1;
      try (LogReader reader = log.reader(ReadRequest.fromStart())) {
        while (seen < writers * perWriter && failure.get() == null) {
          LogRecord r = reader.next();
          if (r == null) {
            reader.whenMoreCommitted().join();
            continue;
          }
          assertTrue(finished.contains(r.position()), "returned before finish: " + r);
          assertTrue(r.position() > last);
          last = r.position();
          seen++;
        }
      }
      for (Thread t : threads) {
        t.join();
      }
      assertNull(failure.get());
      assertEquals(writers * perWriter, seen);
    }
  }
}
