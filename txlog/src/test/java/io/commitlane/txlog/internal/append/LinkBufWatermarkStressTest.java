package io.commitlane.txlog.internal.append;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * Many threads claim ordinals, complete them out of order and advance concurrently on a tiny ring
 * (thousands of wrap-arounds and lost CAS races), while an observer checks every watermark it
 * sees: it never decreases, never passes an ordinal whose completion was not yet added, and
 * ends exactly at the number of ordinals. The outcome is checked, not timed; on failure the first
 * violation is reported.
 */
class LinkBufWatermarkStressTest {
  private static final int THREADS = 4;
  private static final int PER_THREAD = 50_000;
  private static final int CAPACITY = 8;

  @Test
  void concurrentCompletersNeverPassAHoleNorRegress() throws Exception {
    long total = (long) THREADS * PER_THREAD;
    LinkBufWatermark wm = new LinkBufWatermark(CAPACITY, 0);
    AtomicLong claims = new AtomicLong();
    // Set before the completion is added: the watermark may only pass ordinals marked here.
    AtomicReferenceArray<Boolean> added = new AtomicReferenceArray<>((int) total);
    AtomicReference<String> violation = new AtomicReference<>();
    CyclicBarrier start = new CyclicBarrier(THREADS + 2); // workers, observer, this thread
    Thread[] workers = new Thread[THREADS];
    for (int t = 0; t < THREADS; t++) {
      workers[t] = new Thread(() -> {
        await(start);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long[] held = new long[3];
        int holding = 0;
        for (int i = 0; i < PER_THREAD; ) {
          // Hold up to three claims and complete them in a random order, as committers do.
          long n = claims.get();
          if (holding < held.length && n < total && wm.fits(n + 1) && claims.compareAndSet(n, n + 1)) {
            held[holding++] = n;
            continue;
          }
          if (holding == 0) {
            Thread.onSpinWait();
            if (claims.get() >= total) {
              break;
            }
            continue;
          }
          int k = random.nextInt(holding);
          long done = held[k];
          held[k] = held[--holding];
          added.set((int) done, Boolean.TRUE);
          wm.add(done, done + 1);
          wm.advance();
          i++;
        }
        while (holding > 0) {
          long done = held[--holding];
          added.set((int) done, Boolean.TRUE);
          wm.add(done, done + 1);
          wm.advance();
        }
      }, "linkbuf-stress-" + t);
      workers[t].start();
    }
    Thread observer = new Thread(() -> {
      await(start);
      long last = 0;
      long checkedBelow = 0;
      while (last < total && violation.get() == null) {
        long w = wm.watermark();
        if (w < last) {
          violation.compareAndSet(null, "watermark went back from " + last + " to " + w);
        }
        for (long o = checkedBelow; o < w; o++) {
          if (added.get((int) o) == null) {
            violation.compareAndSet(null, "watermark " + w + " passed ordinal " + o
                + " before its completion was added");
          }
        }
        checkedBelow = Math.max(checkedBelow, w);
        last = Math.max(last, w);
        if (workersDone(workers) && wm.watermark() == last) {
          break;
        }
      }
    }, "linkbuf-observer");
    observer.start();
    start.await();
    for (Thread w : workers) {
      w.join();
    }
    observer.join();
    assertNull(violation.get());
    assertEquals(total, wm.watermark(), "every completion was passed");
  }

  private static boolean workersDone(Thread[] workers) {
    for (Thread t : workers) {
      if (t.isAlive()) {
        return false;
      }
    }
    return true;
  }

  private static void await(CyclicBarrier b) {
    try {
      b.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
