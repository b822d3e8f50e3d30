package io.commitlane.actors.internal.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.Database;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When an admission leaves the queue to an executor that will take it soon anyway (one on its way
 * after a claim, or one running a brief unit of work) instead of waking a second executor, and
 * what counts as brief. Signals are driven directly from the test thread, as CommitExecutor drives
 * them; no executor thread runs.
 */
class ExecutorHandOffTest {
  @TempDir
  Path dir;

  private final AtomicInteger growths = new AtomicInteger();
  private Database db;
  private BriefWork brief;

  @BeforeEach
  void open() {
    db = Database.open(dir.resolve("db"));
    brief = new BriefWork(db);
  }

  @AfterEach
  void close() {
    db.close();
  }

  private CommitQueue queue(ExecutorSignal... executors) {
    CommitQueue q = new CommitQueue(dir, 16, 4, brief);
    q.onGrowth(growths::incrementAndGet);
    for (ExecutorSignal e : executors) {
      q.register(e);
    }
    return q;
  }

  private static ExecutorSignal running(String name) {
    ExecutorSignal s = new ExecutorSignal(name, 0, () -> {});
    s.bind(Thread.currentThread());
    return s; // a new signal is RUNNING, as an executor is until it first runs out of work
  }

  /** Idle and parked (past its spin, which is 0 here): an admission's claim would have to unpark it. */
  private static ExecutorSignal parked(String name) {
    ExecutorSignal s = running(name);
    s.idle(false);
    s.await(); // the spin (none) is over: PARKED, without parking this thread
    assertEquals(ExecutorSignal.PARKED, s.state());
    return s;
  }

  @Test
  void anAdmissionLeavesTheQueueToAnExecutorAlreadyOnItsWay() {
    ExecutorSignal onItsWay = parked("a");
    assertTrue(onItsWay.claim());
    ExecutorSignal idle = parked("b");
    queue(onItsWay, idle).wakeOne(request(db, 1));
    assertEquals(ExecutorSignal.PARKED, idle.state(), "the claimed executor takes this commit with the first one");
    assertEquals(0, growths.get());
  }

  @Test
  void aCommitTooBigForABriefUnitWakesAnotherExecutorThoughOneIsOnItsWay() {
    ExecutorSignal onItsWay = parked("a");
    assertTrue(onItsWay.claim());
    ExecutorSignal idle = parked("b");
    queue(onItsWay, idle).wakeOne(request(db, BriefWork.MAX_WRITES + 1));
    assertEquals(ExecutorSignal.CLAIMED, idle.state(), "big commits are shared between the executors as before");
  }

  @Test
  void anAdmissionLeavesTheQueueToAnExecutorRunningABriefUnit() {
    ExecutorSignal busy = running("a");
    busy.working(System.nanoTime(), true);
    assertTrue(busy.takesQueueSoon(System.nanoTime()));
    ExecutorSignal idle = parked("b");
    queue(busy, idle).wakeOne(request(db, 1));
    assertEquals(ExecutorSignal.PARKED, idle.state());
    assertEquals(0, growths.get());
  }

  @Test
  void anExecutorRunningWorkThatIsNotBriefLetsTheAdmissionWakeAnother() {
    ExecutorSignal busy = running("a");
    busy.working(System.nanoTime(), false);
    ExecutorSignal idle = parked("b");
    queue(busy, idle).wakeOne(request(db, 1));
    assertEquals(ExecutorSignal.CLAIMED, idle.state(), "work that may take long must not hold the others up");
  }

  @Test
  void aBriefUnitRunningLongerThanExpectedNoLongerHoldsTheQueue() {
    ExecutorSignal busy = running("a");
    busy.working(System.nanoTime() - BriefWork.WINDOW_NANOS - 1, true);
    assertFalse(busy.takesQueueSoon(System.nanoTime()));
    ExecutorSignal idle = parked("b");
    queue(busy, idle).wakeOne(request(db, 1));
    assertEquals(ExecutorSignal.CLAIMED, idle.state());
  }

  @Test
  void anIdleExecutorIsNotBriefWhateverItsLastUnitWas() {
    ExecutorSignal a = running("a");
    a.working(System.nanoTime(), true);
    a.idle(false); // ran out of work: it no longer takes the queue by itself
    assertFalse(a.takesQueueSoon(System.nanoTime()));
    a.await();
    ExecutorSignal b = parked("b");
    queue(a, b).wakeOne(request(db, 1));
    assertEquals(ExecutorSignal.CLAIMED, a.state(), "the idle executor is claimed: the first registered");
    assertEquals(ExecutorSignal.PARKED, b.state());
  }

  @Test
  void briefMeansFewUnloggedWritesAndNothingThatCanHoldTheCommit() {
    assertTrue(brief.isBrief(request(db, 1), null), "a one-key commit");
    assertTrue(brief.isBrief(request(db, BriefWork.MAX_WRITES), null));
    assertFalse(brief.isBrief(request(db, BriefWork.MAX_WRITES + 1), null), "a big commit");

    List<CommitRequest> group = new ArrayList<>();
    for (int i = 0; i < BriefWork.MAX_WRITES; i++) {
      group.add(request(db, 1));
    }
    assertTrue(brief.isBrief(group.get(0), group), "a merged group of small commits");
    group.add(request(db, 1));
    assertFalse(brief.isBrief(group.get(0), group), "more writes in the group than a brief unit has");

    assertTrue(brief.fitsOneUnit(request(db, 1), BriefWork.MAX_WRITES), "a queue of one-key commits");
    assertFalse(brief.fitsOneUnit(request(db, 1), BriefWork.MAX_WRITES + 1));
    assertFalse(brief.fitsOneUnit(request(db, 40), 2), "two commits of 40 keys");

    try (Database.Registration log = db.addCommitHook(new CommitHook() {
      @Override
      public boolean writesLogs() {
        return true;
      }
    })) {
      CommitRequest logged = request(db, 1);
      logged.txn.useLog("events");
      assertFalse(brief.isBrief(logged, null), "a logged commit appends to its log on the executor");
      assertFalse(brief.isBrief(group.get(0), List.of(request(db, 1), logged)));
      assertFalse(brief.fitsOneUnit(logged, 1));
    }

    try (Database.Registration listener = db.addStageListener((stage, commit) -> {})) {
      assertFalse(brief.isBrief(request(db, 1), null), "a stage listener may hold a commit at any stage");
      assertFalse(brief.fitsOneUnit(request(db, 1), 1));
    }
    assertTrue(brief.isBrief(request(db, 1), null), "the listener is gone");
  }

  /**
   * A brief unit that turns long (a RocksDB write stall) behind a queue its admissions filled
   * inside the unit's window: those admissions woke no executor, and once the queue is full they
   * are refused before they could. A refused admission then grows the pool, once the window is
   * over; inside it, it does not.
   */
  @Test
  void aFullQueueBehindABriefUnitThatTurnedLongGetsAnotherExecutor() {
    ExecutorSignal busy = running("a");
    busy.working(System.nanoTime() + TimeUnit.HOURS.toNanos(1), true); // its window lasts the whole fill, however slow
    CommitQueue q = queue(busy);
    AdmissionGate gate = new AdmissionGate();
    for (int i = 0; i < 16; i++) {
      assertEquals(CommitQueue.Admission.ADMITTED, q.offer(gated(db, gate)));
    }
    assertEquals(0, growths.get(), "the busy executor takes the queue soon: no growth while it fills");
    assertEquals(CommitQueue.Admission.FULL, q.offer(gated(db, gate)));
    assertEquals(0, growths.get(), "still inside the unit's window");

    busy.working(System.nanoTime() - BriefWork.WINDOW_NANOS - 1, true); // the unit outlived its window
    assertEquals(CommitQueue.Admission.FULL, q.offer(gated(db, gate)));
    assertEquals(1, growths.get(), "a refused admission asks for one more executor");
  }

  private static CommitRequest gated(Database db, AdmissionGate gate) {
    Transaction t = db.begin();
    t.put(new byte[] {1}, new byte[] {1});
    return new CommitRequest(t, null, gate);
  }

  private static CommitRequest request(Database db, int keys) {
    Transaction t = db.begin();
    for (int i = 0; i < keys; i++) {
      t.put(new byte[] {(byte) i, (byte) (i >> 8)}, new byte[] {1});
    }
    return new CommitRequest(t, null, null);
  }
}
