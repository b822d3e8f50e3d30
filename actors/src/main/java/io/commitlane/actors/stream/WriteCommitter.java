package io.commitlane.actors.stream;

import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.CommitlaneDatabase;
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
 * and offers it again, on a fresh transaction, after the admission backoff (a stage timer on the
 * materializer's scheduler), as long as the queue stays full. So a full queue costs a timer per
 * backoff step, never a buffer, a drop or an overload error.
 *
 * <p><b>Threads.</b> Everything here, including the request bodies that build transactions, runs
 * on the stream's dispatcher. A commit's completion is delivered by the thread that completed it
 * (a commit executor, or the log's fsync thread) straight into this stage's async callback,
 * which only enqueues it for the stage: one hand-off per commit, no user code on that thread.
 */
final class WriteCommitter<C> extends GraphStage<FlowShape<WriteRequest<C>, WriteOutcome<C>>> {
  /** Runs the completion hand-off on the completing thread: it only enqueues an async-callback event. */
  private static final Executor ON_COMPLETING_THREAD = Runnable::run;
  private static final Object ADMISSION = "admission";

  private final CommitlaneDatabase db;
  private final CommitFlowSettings settings;
  private final boolean ordered;
  private final Inlet<WriteRequest<C>> in;
  private final Outlet<WriteOutcome<C>> out;
  private final FlowShape<WriteRequest<C>, WriteOutcome<C>> shape;

  WriteCommitter(CommitlaneDatabase db, CommitFlowSettings settings, boolean ordered) {
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
    /** Requests the full queue did not admit, to offer again when the admission timer fires. */
    private final ArrayDeque<Slot<C>> awaitingAdmission = new ArrayDeque<>();
    private final int parallelism = settings.parallelism();
    private AsyncCallback<Completion<C>> completed;
    private int occupied;
    private int admissionStep;
    private WriteOutcome.Failed<C> firstFailure;
    private Throwable upstreamFailure;

    Logic() {
      super(shape);
      setHandlers(in, out, this);
    }

    @Override
    public void preStart() {
      completed = createAsyncCallback(this::onCompleted);
      pull(in);
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

    @Override
    public void onTimer(Object key) {
      if (key == ADMISSION) {
        retryAdmission();
      } else {
        @SuppressWarnings("unchecked")
        Slot<C> slot = (Slot<C>) key;
        submit(slot);
      }
    }

    private void submit(Slot<C> slot) {
      if (!awaitingAdmission.isEmpty() || !offer(slot)) {
        awaitingAdmission.add(slot);
        scheduleAdmission();
      }
    }

    private void retryAdmission() {
      for (Slot<C> slot; (slot = awaitingAdmission.peek()) != null; ) {
        if (!offer(slot)) {
          scheduleAdmission();
          return;
        }
        awaitingAdmission.poll();
      }
      pullIfAllowed();
    }

    private void scheduleAdmission() {
      if (!isTimerActive(ADMISSION)) {
        scheduleOnce(ADMISSION, settings.admissionBackoff().delay(++admissionStep));
      }
    }

    /**
     * Build a fresh transaction for the slot and commit it. False if the full queue did not admit
     * it (nothing written; the slot waits for the admission timer); true otherwise.
     */
    private boolean offer(Slot<C> slot) {
      Transaction txn = null;
      try {
        txn = db.begin();
        slot.request.writeTo(txn);
      } catch (RuntimeException e) {
        if (txn != null) {
          txn.abort();
        }
        slot.attempts++;
        finish(slot, new WriteOutcome.Failed<>(slot.request, e, slot.attempts));
        return true;
      }
      CompletableFuture<CommitResult> f;
      try {
        f = db.commit(txn).toCompletableFuture();
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
        admissionStep = 0;
        onCompleted(new Completion<>(slot, cause == null ? f.getNow(null) : null, cause));
        return true;
      }
      admissionStep = 0;
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

  private static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
