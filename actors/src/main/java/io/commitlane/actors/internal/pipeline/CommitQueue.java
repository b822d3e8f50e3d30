package io.commitlane.actors.internal.pipeline;

import io.commitlane.actors.AdmissionTicket;
import io.commitlane.actors.internal.events.CommitAdmittedEvent;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.internal.commit.TwoLaneCommits;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A database's bounded commit queue and its executors' signals. Callers admit commits here
 * directly (no actor hop); an admission claims one idle executor (a spinning one costs nothing, a
 * parked one an unpark, a dormant one a {@code Wake} message), or asks the supervisor for another
 * executor when none is idle and fewer than {@code commitThreads} run. Awake executors drain the
 * queue, so under load commits are handed over in batches without wake-ups.
 *
 * <p>No wake-up is lost: an executor that finds the queue empty first becomes idle and then looks
 * again; an admission that enqueued before that is seen by the second look, and one that enqueued
 * after it finds the executor idle (see {@link ExecutorSignal}).
 *
 * <p><b>Waiting for room.</b> A full queue refuses a plain admission at once. A caller that would
 * rather wait takes an {@link AdmissionTicket}: tickets wait in one FIFO line, and every place
 * that frees (a commit dequeued, a refused admission backing out, granted room given back) grants
 * at most one ticket per free place, in line order, holding that place for it. No wake-up is
 * lost: a ticket joins the line and then looks for room, a place is freed and then the line is
 * looked at, so at least one of the two sees the other.
 */
public final class CommitQueue {
  enum Admission { ADMITTED, FULL, CLOSED }

  private final Path path;
  /** The database's path as Flight Recorder events name it. */
  private final String database;
  private final ConcurrentLinkedQueue<CommitRequest> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  /** The running executors' signals, most recently started last; replaced whole when one starts or stops. */
  private volatile ExecutorSignal[] signals = new ExecutorSignal[0];
  private final AtomicBoolean growthRequested = new AtomicBoolean();
  private final AtomicInteger executors = new AtomicInteger();
  /** Executors spawned that have not drained yet: they will, so they count as idle for growth. */
  private final AtomicInteger starting = new AtomicInteger();
  private final int capacity;
  private final int maxExecutors;
  public final LongAdder admitted = new LongAdder();
  public final LongAdder overloaded = new LongAdder();
  private volatile Runnable growth = () -> {};
  /** What counts as brief work; null: nothing does (every commit may wake another executor). */
  private final BriefWork brief;
  /** Tickets waiting for room, oldest first; guarded by itself. */
  private final ArrayDeque<AdmissionTicket> waiters = new ArrayDeque<>();
  /** waiters.size(), readable without the lock: a freed place looks at the line only when someone waits. */
  private volatile int waiting;
  private volatile boolean stopped;

  /**
   * @param brief what counts as a brief unit of work for this database's executors (see {@link
   *     #wakeOne}); null, nothing does
   */
  CommitQueue(Path path, int capacity, int maxExecutors, BriefWork brief) {
    this.path = path;
    this.brief = brief;
    this.database = path.toString();
    this.capacity = capacity;
    this.maxExecutors = maxExecutors;
  }

  /** Whether running {@code group} (or {@code lone}, without a group) is a brief unit of work ({@link BriefWork}). */
  boolean isBrief(CommitRequest lone, List<CommitRequest> group) {
    return brief != null && brief.isBrief(lone, group);
  }

  /** What asks the supervisor to start one more executor. */
  public void onGrowth(Runnable growth) {
    this.growth = growth;
  }

  /**
   * Admit a commit through its handle's gate. On {@code FULL} or {@code CLOSED} nothing was
   * queued and the caller reports the error. The ADMITTED stage is reported before the commit
   * becomes visible to executors.
   */
  Admission offer(CommitRequest r) {
    return offer(r, null);
  }

  /**
   * {@link #offer(CommitRequest)} into the place a granted {@code ticket} holds (null: take a free
   * place or report {@code FULL}). The ticket's place is used up either way: admitted, or given
   * back when the commit is refused.
   */
  Admission offer(CommitRequest r, AdmissionTicket ticket) {
    if (ticket != null) {
      use(ticket);
    }
    if (stopped || !r.gate.tryAdmit()) {
      if (ticket != null) {
        release();
      }
      return Admission.CLOSED;
    }
    if (ticket == null && queued.incrementAndGet() > capacity) {
      release(); // a place freed meanwhile may be free only once this refused admission backs out
      r.gate.completed();
      overloaded.increment();
      growWhenStuck();
      return Admission.FULL;
    }
    try {
      r.txn.reportStage(CommitStage.ADMITTED);
    } catch (RuntimeException e) {
      release();
      r.gate.completed();
      throw e;
    }
    admitted.increment();
    if (CommitAdmittedEvent.TYPE.isEnabled()) {
      recordAdmitted(r);
    }
    queue.add(r);
    wakeOne(r);
    if (stopped) {
      // The supervisor stopped (actor system terminating) after our admission: nobody will run it.
      failRemaining();
    }
    return Admission.ADMITTED;
  }

  /**
   * Queue a commit that another queue admitted already (in two-lane mode, one the log lane
   * validated and logged): no gate, no ADMITTED stage. {@code FULL} when no place is free and
   * {@code ticket} (granted, or null) holds none; then nothing was queued.
   */
  Admission handOff(CommitRequest r, AdmissionTicket ticket) {
    if (ticket != null) {
      use(ticket);
    } else if (queued.incrementAndGet() > capacity) {
      release();
      return Admission.FULL;
    }
    queue.add(r);
    wakeOne(r);
    if (stopped) {
      failRemaining(); // nobody will run it: fail it here (each request is polled once)
    }
    return Admission.ADMITTED;
  }

  private void recordAdmitted(CommitRequest r) {
    CommitAdmittedEvent e = new CommitAdmittedEvent();
    if (e.shouldCommit()) {
      e.database = database;
      e.transactionId = r.txn.id();
      e.queueDepth = queued.get();
      e.commit();
    }
  }

  /** The database's path, as Flight Recorder events name it. */
  String database() {
    return database;
  }

  /** The oldest queued commit, left in the queue; null if none. */
  CommitRequest peek() {
    return queue.peek();
  }

  CommitRequest poll() {
    CommitRequest r = queue.poll();
    if (r != null) {
      release();
    }
    return r;
  }

  /** Join the line for a place; {@code onGranted} runs once one is held for the ticket (maybe before this returns). */
  AdmissionTicket awaitSpace(Runnable onGranted) {
    AdmissionTicket ticket = new AdmissionTicket(this, onGranted);
    synchronized (waiters) {
      waiters.add(ticket);
      waiting = waiters.size();
    }
    grantWaiters(); // joined, then looked: a place freed before the join is seen here
    return ticket;
  }

  public Object waiterLock() {
    return waiters;
  }

  private void use(AdmissionTicket ticket) {
    if (ticket.queue() != this) {
      throw new IllegalArgumentException("the admission ticket belongs to another database than " + path);
    }
    synchronized (waiters) {
      if (!ticket.granted || ticket.ended) {
        throw new IllegalStateException(ticket.ended
            ? "the admission ticket was already used or cancelled; take a new one with awaitAdmission"
            : "the admission ticket is not granted yet; commit with it once its callback ran");
      }
      ticket.ended = true;
    }
  }

  public void cancel(AdmissionTicket ticket) {
    boolean giveBack;
    synchronized (waiters) {
      if (ticket.ended) {
        return;
      }
      ticket.ended = true;
      giveBack = ticket.granted;
      if (!giveBack) {
        waiters.remove(ticket);
        waiting = waiters.size();
      }
    }
    if (giveBack) {
      release();
    }
  }

  /** A place is free again: count it out, then grant it to the line if anyone waits. */
  private void release() {
    queued.decrementAndGet();
    if (waiting > 0) {
      grantWaiters();
    }
  }

  /** Hold a free place for each ticket at the head of the line while there is one; tell them outside the lock. */
  private void grantWaiters() {
    List<AdmissionTicket> granted = null;
    synchronized (waiters) {
      for (AdmissionTicket t; (t = waiters.peek()) != null && reservePlace(); ) {
        waiters.poll();
        t.granted = true;
        if (granted == null) {
          granted = new ArrayList<>(1);
        }
        granted.add(t);
      }
      waiting = waiters.size();
    }
    if (granted != null) {
      for (AdmissionTicket t : granted) {
        t.granted();
      }
    }
  }

  /** Take one free place, never past capacity (a CAS: only the line's lock holder reserves this way). */
  private boolean reservePlace() {
    for (int q; (q = queued.get()) < capacity; ) {
      if (queued.compareAndSet(q, q + 1)) {
        return true;
      }
    }
    return false;
  }

  /** Tickets waiting in line (for stats and tests). */
  public int waiting() {
    return waiting;
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  /** An executor's actor was set up: admissions may claim it once it is idle. */
  synchronized void register(ExecutorSignal e) {
    if (Arrays.asList(signals).contains(e)) {
      return; // a restart sets the same executor up again
    }
    ExecutorSignal[] s = Arrays.copyOf(signals, signals.length + 1);
    s[s.length - 1] = e;
    signals = s;
  }

  private synchronized void unregister(ExecutorSignal e) {
    signals = Arrays.stream(signals).filter(x -> x != e).toArray(ExecutorSignal[]::new);
  }

  /** Whether every executor but {@code self} is idle. */
  boolean othersIdle(ExecutorSignal self) {
    for (ExecutorSignal e : signals) {
      if (e != self && !e.isIdle()) {
        return false;
      }
    }
    return true;
  }

  /** Close has drained the queue: idle executors leave their threads' waits for their mailboxes, where stop reaches them. */
  public void dismissIdle() {
    for (ExecutorSignal e : signals) {
      e.dismiss();
    }
  }

  /** The supervisor will not start an executor now; a later admission may ask again. */
  public void growthDeclined() {
    growthRequested.set(false);
  }

  /** The supervisor started an executor; it may start another once this one is counted. */
  public void executorStarted() {
    executors.incrementAndGet();
    starting.incrementAndGet();
    growthRequested.set(false);
  }

  /** The executor counted by {@link #executorStarted()} could not be started after all. */
  public void executorFailedToStart() {
    executors.decrementAndGet();
    starting.decrementAndGet();
    growthRequested.set(false);
  }

  /** A started executor is about to drain for the first time. */
  void executorRunning() {
    starting.decrementAndGet();
  }

  void executorStopped(ExecutorSignal e) {
    unregister(e);
    executors.decrementAndGet();
  }

  public boolean mayGrow() {
    return executors.get() < maxExecutors;
  }

  public int executors() {
    return executors.get();
  }

  /**
   * Executors whose actor was set up (registered, before its first drain) and has not stopped, for
   * stats: unlike {@link #executors()} it never counts one that is being started and may still fail
   * to start.
   */
  public int executorsSpawned() {
    return signals.length;
  }

  int idleExecutors() {
    int n = 0;
    for (ExecutorSignal e : signals) {
      n += e.isIdle() ? 1 : 0;
    }
    return n;
  }

  public int depth() {
    return queued.get();
  }

  int capacity() {
    return capacity;
  }

  /**
   * The supervisor stopped: fail what is queued, and refuse what comes. Admissions racing with this see {@code stopped}
   * after their enqueue and fail what they added themselves (each request is polled once).
   */
  public void stop() {
    stopped = true;
    failRemaining();
  }

  private void failRemaining() {
    for (CommitRequest r; (r = poll()) != null; ) {
      try {
        Throwable closed = new DatabaseClosedException(path);
        // A commit the log lane prepared holds its locks and its log record: undo both first.
        r.failed(TwoLaneCommits.isPrepared(r.txn) ? TwoLaneCommits.abandonPrepared(r.txn, closed) : closed);
      } finally {
        r.gate.completed();
      }
    }
  }

  /**
   * {@code r} is queued: claim an idle executor, or ask for one more if work is still queued (an
   * executor that left its idle state by itself took its work out of the queue first, see
   * CommitExecutor). A spinning executor is claimed first (it costs no wake-up and has the
   * warmest caches), then any idle one.
   *
   * <p>Unless the queue, commits the size of {@code r}, fits one brief unit of work ({@link
   * BriefWork}) and an executor will take it soon anyway: one a claim already put on its way, or
   * one running a brief unit ({@link ExecutorSignal#takesQueueSoon}). That executor takes it next,
   * with the others queued, as one merged group, sooner than a second executor could wake. Waking
   * a second one for small commits would split the groups (more callback tasks, more callers
   * woken per commit) and take a core from the callers; for bigger or logged work the executors
   * share the queue as before. No wake-up is lost: an executor on its way or running looks at the
   * queue again before it becomes idle.
   */
  void wakeOne(CommitRequest r) {
    ExecutorSignal[] s = signals;
    for (ExecutorSignal e : s) {
      if (e.claimSpinning()) {
        return;
      }
    }
    if (brief != null && brief.fitsOneUnit(r, queued.get())) {
      long now = System.nanoTime();
      for (ExecutorSignal e : s) {
        if (e.isClaimed() || e.takesQueueSoon(now)) {
          return;
        }
      }
    }
    boolean onItsWay = false;
    for (ExecutorSignal e : s) {
      if (e.claim()) {
        return;
      }
      onItsWay |= e.isClaimed();
    }
    // A claimed executor is on its way to the queue: it takes this commit too, and wakes or grows
    // the pool itself if more is queued than it takes. Otherwise grow if work is still queued.
    if (!onItsWay && !queue.isEmpty()) {
      requestGrowth();
    }
  }

  /**
   * The queue is full: if no executor will take it soon (none on its way, none inside a brief
   * unit's window), wake an idle one or start one more. Admissions that filled the queue inside a
   * brief unit's window woke none ({@link #wakeOne}), and once it is full they are refused before
   * they could; without this, a brief unit that turns long (a RocksDB write stall or slowdown)
   * would leave the other executors idle behind a full queue until it ends.
   */
  private void growWhenStuck() {
    ExecutorSignal[] s = signals;
    long now = System.nanoTime();
    for (ExecutorSignal e : s) {
      if (e.isClaimed() || e.takesQueueSoon(now)) {
        return;
      }
    }
    for (ExecutorSignal e : s) {
      if (e.claim()) {
        return;
      }
    }
    if (!queue.isEmpty()) {
      requestGrowth();
    }
  }

  /** Ask for one more executor unless one was asked for and not started yet, or all run. */
  public void requestGrowth() {
    if (starting.get() == 0 && executors.get() < maxExecutors && growthRequested.compareAndSet(false, true)) {
      growth.run();
    }
  }
}
