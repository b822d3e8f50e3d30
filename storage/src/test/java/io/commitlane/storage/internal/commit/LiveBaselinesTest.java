package io.commitlane.storage.internal.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The lower bound on live baselines that lets the record of recent writes forget safely. */
class LiveBaselinesTest {
  @Test
  void theOldestLiveTransactionHoldsTheBoundAndLeavingReleasesIt() {
    AtomicLong clock = new AtomicLong(1);
    LiveBaselines live = new LiveBaselines(clock::get);
    long g = live.enter();
    long baseline = clock.get();
    clock.addAndGet(1_000);
    assertTrue(live.oldest() <= baseline, "a live transaction's baseline is never below the bound");
    live.leave(g);
    assertEquals(clock.get(), live.oldest(), "nobody live: the bound is the clock");
  }

  @Test
  void aFullRingKeepsTheBoundAtTheOldestGenerationUntilItEmpties() {
    AtomicLong clock = new AtomicLong(1);
    LiveBaselines live = new LiveBaselines(clock::get);
    long pinned = live.enter();
    long pinnedBaseline = clock.get();
    List<Long> others = new ArrayList<>();
    for (int i = 0; i < 3 * LiveBaselines.GENERATIONS; i++) {
      clock.addAndGet(LiveBaselines.SPAN);
      assertTrue(live.oldest() <= pinnedBaseline);
      others.add(live.enter()); // every generation gets a member, so the ring fills
    }
    assertEquals(LiveBaselines.GENERATIONS - 1, live.generation(), "the ring stops at its size while its oldest is held");
    live.leave(pinned);
    others.forEach(live::leave);
    clock.addAndGet(LiveBaselines.SPAN);
    assertEquals(clock.get(), live.oldest());
    assertEquals(LiveBaselines.GENERATIONS, live.generation(), "generations start again");
  }

  /**
   * Threads enter, read their baseline from a clock other threads keep advancing, ask for the
   * bound (which also starts generations) and leave. The bound must never pass a baseline of the
   * thread asking: that holds for every interleaving, so the threads run free.
   */
  @Test
  void theBoundNeverPassesALiveBaselineUnderConcurrency() throws Exception {
    AtomicLong clock = new AtomicLong(1);
    LiveBaselines live = new LiveBaselines(clock::get);
    int threads = 4;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<String> violations = new CopyOnWriteArrayList<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w = new Thread(() -> {
        try {
          start.await();
          for (int i = 0; i < 200_000; i++) {
            long g = live.enter();
            long baseline = clock.get();
            clock.incrementAndGet(); // another commit
            long bound = live.oldest();
            if (bound > baseline) {
              violations.add("bound " + bound + " above live baseline " + baseline);
            }
            live.leave(g);
          }
        } catch (Exception e) {
          violations.add(e.toString());
        }
      });
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join();
    }
    assertEquals(List.of(), violations);
    assertTrue(live.generation() > LiveBaselines.GENERATIONS, "generations came and went: " + live.generation());
  }
}
