package io.commitlane.actors.internal.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * How an executor waits and is woken: each idle state is ended by exactly one claim, and the
 * claimer does what that state needs (nothing, an unpark, a Wake message). The executor's side
 * runs on a thread of the test, looping as CommitExecutor does; states are awaited, never slept for.
 */
class ExecutorSignalTest {
  private static final long ONE_HOUR = TimeUnit.HOURS.toNanos(1);
  private final AtomicInteger wakesTold = new AtomicInteger();

  private ExecutorSignal signal(long spinNanos) {
    ExecutorSignal s = new ExecutorSignal("executor-under-test", spinNanos, wakesTold::incrementAndGet);
    s.bind(Thread.currentThread());
    return s;
  }

  /** The executor's wait: until claimed (true) or dormant (false). */
  private static Thread waiter(ExecutorSignal s, List<Boolean> outcome, CountDownLatch idle) {
    Thread t = new Thread(() -> {
      s.bind(Thread.currentThread());
      s.idle(true);
      idle.countDown();
      while (true) {
        int state = s.state();
        if (state == ExecutorSignal.CLAIMED || state == ExecutorSignal.DORMANT) {
          outcome.add(state == ExecutorSignal.CLAIMED);
          return;
        }
        s.await();
      }
    }, "waiter");
    t.setDaemon(true);
    return t;
  }

  private static void awaitState(ExecutorSignal s, int state) {
    while (s.state() != state) {
      Thread.onSpinWait();
    }
  }

  @Test
  void aSpinningExecutorIsClaimedWithoutAWakeUp() {
    ExecutorSignal s = signal(ONE_HOUR);
    assertFalse(s.claim(), "a running executor cannot be claimed");
    s.idle(true);
    s.await(); // spins: the previous idle period (none yet) was short
    assertEquals(ExecutorSignal.SPINNING, s.state());
    assertTrue(s.claimSpinning());
    assertEquals(ExecutorSignal.CLAIMED, s.state());
    assertTrue(s.isClaimed());
    assertFalse(s.isIdle(), "claimed: on its way to the queue, no longer idle");
    assertFalse(s.claim(), "one claim per idle period");
    assertEquals(0, wakesTold.get());
  }

  @Test
  void aParkedExecutorIsUnparkedByTheClaimNotSentAMessage() throws Exception {
    ExecutorSignal s = signal(0); // no spin: parks at once
    List<Boolean> outcome = new ArrayList<>();
    CountDownLatch idle = new CountDownLatch(1);
    Thread t = waiter(s, outcome, idle);
    t.start();
    awaitState(s, ExecutorSignal.PARKED);
    assertFalse(s.claimSpinning(), "a parked executor is not taken as a spinning one");
    assertTrue(s.claim());
    t.join(TimeUnit.MINUTES.toMillis(1));
    assertFalse(t.isAlive(), "the claim's unpark did not wake the parked thread");
    assertEquals(List.of(true), outcome);
    assertEquals(0, wakesTold.get());
  }

  @Test
  void aDismissedExecutorLeavesForItsMailboxAndIsThenWokenByAMessage() throws Exception {
    ExecutorSignal s = signal(0);
    List<Boolean> outcome = new ArrayList<>();
    CountDownLatch idle = new CountDownLatch(1);
    Thread t = waiter(s, outcome, idle);
    t.start();
    awaitState(s, ExecutorSignal.PARKED);
    s.dismiss();
    t.join(TimeUnit.MINUTES.toMillis(1));
    assertFalse(t.isAlive(), "dismiss did not wake the parked thread");
    assertEquals(List.of(false), outcome);
    assertEquals(ExecutorSignal.DORMANT, s.state());
    assertTrue(s.isIdle(), "a dormant executor is still idle: an admission may claim it");
    assertTrue(s.claim());
    assertEquals(1, wakesTold.get());
    assertEquals(ExecutorSignal.CLAIMED, s.state());
  }

  @Test
  void anExecutorBackFromItsMailboxParksAtOnceUntilItsWaitsAreShortAgain() {
    ExecutorSignal s = signal(ONE_HOUR);
    s.idle(true);
    s.dismiss();
    s.leaveForMailbox();
    assertTrue(s.claim()); // the Wake message
    s.idle(true);
    s.await();
    assertEquals(ExecutorSignal.PARKED, s.state(), "no spin right after a long idle period");
    assertTrue(s.claim());
    s.resume(); // this idle period was short
    s.idle(true);
    s.await();
    assertEquals(ExecutorSignal.SPINNING, s.state(), "commits arrive again: spin");
    assertTrue(s.claim());
    s.resume();
    s.idle(false);
    s.await();
    assertEquals(ExecutorSignal.PARKED, s.state(), "after a merged group: no spin");
  }

  /**
   * A claim can land after the executor took the claimer's commit itself, ran it and became idle
   * again: the executor then finds nothing queued, becomes idle again, and is claimable.
   */
  @Test
  void aLateClaimLeavesTheExecutorIdleAgainOnceItLooked() {
    ExecutorSignal s = signal(ONE_HOUR);
    s.idle(true);
    s.resume(); // took the commit itself before the admission's claim
    s.idle(true); // ran it, idle again
    assertTrue(s.claimSpinning(), "the late claim");
    assertFalse(s.isIdle());
    s.resume(); // the executor's loop: claimed, nothing queued
    s.idle(true);
    assertTrue(s.isIdle());
    assertTrue(s.claimSpinning(), "the next admission claims it");
  }

  @Test
  void racingClaimsEndAnIdlePeriodExactlyOnce() throws Exception {
    for (int round = 0; round < 200; round++) {
      ExecutorSignal s = signal(ONE_HOUR);
      s.idle(true);
      int claimers = 4;
      CountDownLatch start = new CountDownLatch(1);
      AtomicInteger won = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < claimers; i++) {
        boolean any = i % 2 == 0;
        Thread t = new Thread(() -> {
          try {
            start.await();
          } catch (InterruptedException e) {
            return;
          }
          if (any ? s.claim() : s.claimSpinning()) {
            won.incrementAndGet();
          }
        });
        threads.add(t);
        t.start();
      }
      start.countDown();
      for (Thread t : threads) {
        t.join();
      }
      assertEquals(1, won.get(), "round " + round);
    }
  }
}
