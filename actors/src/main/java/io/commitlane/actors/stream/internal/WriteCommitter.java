package io.commitlane.actors.stream.internal;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import io.commitlane.actors.AdmissionTicket;
import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.stream.CommitFlow;
import io.commitlane.actors.stream.CommitFlowSettings;
import io.commitlane.actors.stream.ConflictRetry;
import io.commitlane.actors.stream.FailureMode;
import io.commitlane.actors.stream.WriteFailedException;
import io.commitlane.actors.stream.WriteOutcome;
import io.commitlane.actors.stream.WriteRequest;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Transaction;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.InHandler;
import org.apache.pekko.stream.stage.OutHandler;
import org.apache.pekko.stream.stage.TimerGraphStageLogic;

/**
 * The stage behind {@link CommitFlow}: commits each request on the database's executors with at
 * most {@code parallelism} requests taken and not yet emitted, retries conflicts, and turns a
 * full commit queue into backpressure.
 *
 * <p><b>A full queue.</b> {@link CommitlaneDatabase#commit} answers a full queue synchronously
 * (nothing admitted). The stage then aborts that transaction, parks the request, stops pulling
 * and joins the database's line of waiters with one {@link AdmissionTicket} (one per stage, so
 * streams sharing a database take turns). The queue grants the ticket the moment a commit leaves
 * it, holding that place; the grant reaches the stage through an async callback, and the parked
 * request is built on a fresh transaction and committed into the held place at once. Nothing
 * polls; a full queue never costs a buffer, a drop or an overload error.
 *
 * <p><b>Threads.</b> Everything here, including the request bodies that build transactions, runs
 * on the stream's dispatcher. A commit's completion is delivered by the thread that completed it
 * (a commit executor, or the log's fsync thread) straight into this stage's async callback,
 * which only enqueues it for the stage: one hand-off per commit, no user code on that thread.
 */
public final class WriteCommitter<C> extends GraphStage<FlowShape<WriteRequest<C>, WriteOutcome<C>>> {
  /** Runs the completion hand-off on the completing thread: it only enqueues an async-callback event. */
  private static final Executor ON_COMPLETING_THREAD = Runnable::run;

  private final CommitlaneDatabase db;
  private final CommitFlowSettings settings;
  private final boolean ordered;
  private final Inlet<WriteRequest<C>> in;
  private final Outlet<WriteOutcome<C>> out;
  private final FlowShape<WriteRequest<C>, WriteOutcome<C>> shape;

  public WriteCommitter(CommitlaneDatabase db, CommitFlowSettings settings, boolean ordered) {
    this.db = db;
    this.settings = settings;
    this.ordered = ordered;
    String name = ordered ? "CommitFlow.ordered" : "CommitFlow.unordered";
    this.in = Inlet.create(name + ".in");
    this.out = Outlet.create(name + ".out");
    this.shape = FlowShape.of(in, out);
  }

  @Override
  public FlowShape<WriteRequest<C>, WriteOutcome<C>> shape() {
    return shape;
  }

  @Override
  public Attributes initialAttributes() {
    return Attributes.name(ordered ? "commitFlowOrdered" : "commitFlowUnordered");
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    return new Logic();
  }

  /** A request taken from upstream, until its outcome is emitted. */
  private static final class Slot<C> {
    final WriteRequest<C> request;
    int attempts;
    WriteOutcome<C> outcome;

    Slot(WriteRequest<C> request) {
      this.request = request;
    }
  }

  private record Completion<C>(Slot<C> slot, CommitResult result, Throwable failure) {}

  private final class Logic extends TimerGraphStageLogic implements InHandler, OutHandler {
    /** Ordered: every slot taken, in request order. Unordered: unused. */
    private final ArrayDeque<Slot<C>> taken = new ArrayDeque<>();
    /** Unordered: slots with an outcome, in completion order. */
    private final ArrayDeque<Slot<C>> done = new ArrayDeque<>();
    /** Requests the full queue did not admit, in arrival order: the first goes into the next place granted. */
    private final ArrayDeque<Slot<C>> awaitingAdmission = new ArrayDeque<>();
    private final int parallelism = settings.parallelism();
    private AsyncCallback<Completion<C>> completed;
    private AsyncCallback<Boolean> granted;
    /** This stage's place in the database's line, while it waits (at most one). */
    private AdmissionTicket ticket;
    /** A grant handled before awaitAdmission returned its ticket (if the callback ever ran inline). */
    private boolean grantedEarly;
    private int occupied;
    private WriteOutcome.Failed<C> firstFailure;
    private Throwable upstreamFailure;

    Logic() {
      super(shape);
      setHandlers(in, out, this);
    }

    @Override
    public void preStart() {
      completed = createAsyncCallback(this::onCompleted);
      granted = createAsyncCallback(ignored -> onGranted());
      pull(in);
    }

    @Override
    public void postStop() {
      if (ticket != null) {
        ticket.cancel(); // a place held for a stage that stopped goes to the next in line
        ticket = null;
      }
    }

    @Override
    public void onPush() {
      Slot<C> slot = new Slot<>(grab(in));
      occupied++;
      if (ordered) {
        taken.add(slot);
      }
      submit(slot);
      pullIfAllowed();
    }

    @Override
    public void onUpstreamFinish() {
      finishIfDrained();
    }

    @Override
    public void onUpstreamFailure(Throwable ex) {
      // Let what was taken finish and be emitted, so no commit's outcome is lost; then fail.
      upstreamFailure = ex;
      finishIfDrained();
    }

    @Override
    public void onPull() {
      emitReady();
    }

    /** A conflict retry's backoff ended. */
    @Override
    public void onTimer(Object key) {
      @SuppressWarnings("unchecked")
      Slot<C> slot = (Slot<C>) key;
      submit(slot);
    }

    private void submit(Slot<C> slot) {
      if (!awaitingAdmission.isEmpty() || !offer(slot, null)) {
        awaitingAdmission.add(slot);
        awaitPlace();
      }
    }

    /** Join the database's line once; the grant comes back through {@link #onGranted}. */
    private void awaitPlace() {
      if (ticket == null) {
        // The grant may come on any thread, even before this returns: the callback only enqueues an
        // event, which this stage handles after the ticket is stored (one ticket, one grant, at a time).
        AsyncCallback<Boolean> callback = granted;
        ticket = db.awaitAdmission(() -> callback.invoke(Boolean.TRUE));
        if (grantedEarly) {
          grantedEarly = false;
          onGranted();
        }
      }
    }

    /**
     * A place is held for this stage: the oldest parked request takes it; the rest go through the
     * ordinary admission while the queue has room, and the stage joins the line again if not.
     */
    private void onGranted() {
      AdmissionTicket t = ticket;
      if (t == null) {
        grantedEarly = true; // the callback ran inside awaitAdmission: awaitPlace hands it on
        return;
      }
      ticket = null;
      Slot<C> first = awaitingAdmission.poll();
      if (first == null) {
        t.cancel();
      } else {
        offer(first, t);
      }
      for (Slot<C> slot; (slot = awaitingAdmission.peek()) != null; ) {
        if (!offer(slot, null)) {
          awaitPlace();
          return;
        }
        awaitingAdmission.poll();
      }
      pullIfAllowed();
    }

    /**
     * Build a fresh transaction for the slot and commit it, into the place {@code held} holds if
     * given. False if the full queue did not admit it (only without a held place; nothing written,
     * the slot waits for a grant); true otherwise.
     */
    private boolean offer(Slot<C> slot, AdmissionTicket held) {
      Transaction txn = null;
      try {
        txn = db.begin();
        slot.request.writeTo(txn);
      } catch (RuntimeException e) {
        if (txn != null) {
          txn.abort();
        }
        if (held != null) {
          held.cancel();
        }
        slot.attempts++;
        finish(slot, new WriteOutcome.Failed<>(slot.request, e, slot.attempts));
        return true;
      }
      CompletableFuture<CommitResult> f;
      try {
        f = (held == null ? db.commit(txn) : db.commit(txn, held)).toCompletableFuture();
      } catch (RuntimeException e) {
        txn.abort();
        slot.attempts++;
        finish(slot, new WriteOutcome.Failed<>(slot.request, e, slot.attempts));
        return true;
      }
      if (f.isDone()) {
        txn.abort(); // no-op unless the commit was refused before it started (snapshot released)
        Throwable cause = causeOf(f);
        if (cause instanceof CommitQueueFullException) {
          return false;
        }
        onCompleted(new Completion<>(slot, cause == null ? f.getNow(null) : null, cause));
        return true;
      }
      f.whenCompleteAsync((r, e) -> completed.invoke(new Completion<>(slot, r, e)), ON_COMPLETING_THREAD);
      return true;
    }

    private void onCompleted(Completion<C> c) {
      Slot<C> slot = c.slot();
      Throwable cause = unwrap(c.failure());
      if (cause == null) {
        slot.attempts++;
        finish(slot, new WriteOutcome.Committed<>(slot.request, c.result(), slot.attempts));
        return;
      }
      if (cause instanceof CommitQueueFullException) {
        submit(slot); // refused, not attempted: wait for admission like any other
        return;
      }
      slot.attempts++;
      if (cause instanceof ConflictException conflict) {
        ConflictRetry retry = settings.conflictRetry();
        if (slot.attempts < retry.maxAttempts()) {
          Duration delay = retry.backoff().delay(slot.attempts);
          if (delay.isZero()) {
            submit(slot);
          } else {
            scheduleOnce(slot, delay);
          }
          return;
        }
        cause = slot.attempts == 1 ? conflict : new ConflictException(conflict.transactionId(), slot.attempts);
      }
      finish(slot, new WriteOutcome.Failed<>(slot.request, cause, slot.attempts));
    }

    private void finish(Slot<C> slot, WriteOutcome<C> outcome) {
      slot.outcome = outcome;
      if (firstFailure == null && outcome instanceof WriteOutcome.Failed<C> failed
          && settings.failureMode() == FailureMode.FAIL_STREAM) {
        firstFailure = failed; // stop pulling; what was taken still finishes and is emitted
      }
      if (!ordered) {
        done.add(slot);
      }
      emitReady();
    }

    private void emitReady() {
      if (isAvailable(out)) {
        Slot<C> next = ordered ? (taken.peek() != null && taken.peek().outcome != null ? taken.poll() : null) : done.poll();
        if (next != null) {
          occupied--;
          push(out, next.outcome);
        }
      }
      if (!finishIfDrained()) {
        pullIfAllowed();
      }
    }

    private boolean finishIfDrained() {
      if (occupied > 0 || !(isClosed(in) || firstFailure != null)) {
        return false;
      }
      if (firstFailure != null) {
        failStage(new WriteFailedException(firstFailure));
      } else if (upstreamFailure != null) {
        failStage(upstreamFailure);
      } else {
        completeStage();
      }
      return true;
    }

    private void pullIfAllowed() {
      if (firstFailure == null && occupied < parallelism && awaitingAdmission.isEmpty() && !isClosed(in) && !hasBeenPulled(in)) {
        pull(in);
      }
    }
  }

  private static Throwable causeOf(CompletableFuture<?> f) {
    if (!f.isCompletedExceptionally()) {
      return null;
    }
    try {
      f.getNow(null);
      return null;
    } catch (CompletionException | CancellationException e) {
      return unwrap(e);
    }
  }

}
