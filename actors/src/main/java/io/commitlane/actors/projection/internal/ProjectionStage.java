package io.commitlane.actors.projection.internal;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import io.commitlane.actors.projection.Projection;
import io.commitlane.actors.projection.ProjectionBatch;
import io.commitlane.actors.projection.ProjectionConflictException;
import io.commitlane.actors.projection.ProjectionControl;
import io.commitlane.actors.projection.ProjectionHandler;
import io.commitlane.actors.projection.ProjectionHandlerException;
import io.commitlane.actors.projection.ProjectionSettings;
import io.commitlane.actors.projection.ProjectionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.OutHandler;
import org.apache.pekko.stream.stage.TimerGraphStageLogic;

/**
 * The projection runner: a source that commits one batch per element downstream asks for.
 *
 * <p>The invariant it keeps: a batch is handed to the store's {@code commit} only after the
 * position it comes after ({@link Logic#position}) was read from the store or committed by this
 * runner, and every record in it is the next one of the log after that position, in order. The
 * store commits the batch only if that position is still the stored one, in the same transaction
 * as the handler's writes and the new position. So, whatever fails or races, every record's writes
 * are applied once: a batch either commits whole, moving the position past it, or leaves both as
 * they were.
 *
 * <p>Steps, all on the stage's thread (the projection's dispatcher; the handler and the reads may
 * block there): load the stored position, open a reader after it, read up to a batch ahead,
 * commit a batch when downstream pulled (and it is full, or {@code max-wait} passed, or {@code
 * max-wait} is 0), push it once committed, wait until the store's next transaction sees the
 * commit, go on. A conflict, a failure or a stop request while a batch is committing waits for its
 * outcome. After a conflict or a failure the runner drops what it read and starts again from the
 * load, after a backoff; completions of the old reader or commit are recognised by their
 * generation and ignored.
 */
final class ProjectionStage<R, T> extends AbstractGraphStageWithMaterializedValue<SourceShape<ProjectionBatch<R>>, ProjectionControl> {
  private static final String LINGER = "linger";
  private static final String RESTART = "restart";

  private final ProjectionStore<R, T> store;
  private final String name;
  private final ProjectionHandler<R, T> handler;
  private final ProjectionSettings settings;
  private final Outlet<ProjectionBatch<R>> out = Outlet.create("Projection.out");
  private final SourceShape<ProjectionBatch<R>> shape = SourceShape.of(out);

  ProjectionStage(ProjectionStore<R, T> store, String name, ProjectionHandler<R, T> handler, ProjectionSettings settings) {
    this.store = store;
    this.name = name;
    this.handler = handler;
    this.settings = settings;
  }

  @Override
  public SourceShape<ProjectionBatch<R>> shape() {
    return shape;
  }

  @Override
  public Attributes initialAttributes() {
    return Attributes.name("projection-" + name);
  }

  @Override
  public Pair<GraphStageLogic, ProjectionControl> createLogicAndMaterializedValuePair(Attributes inheritedAttributes) {
    ProjectionRun run = new ProjectionRun(name);
    return Pair.create(new Logic(run), run);
  }

  private record Loaded(int generation, StoredPosition stored, Throwable error) {}

  private record More(int generation, Throwable error) {}

  private record Durable(int generation, Throwable error) {}

  private record Committed(int generation, long commit, Throwable error) {}

  private record Visible(int generation, Throwable error) {}

  private final class Logic extends TimerGraphStageLogic {
    private final ProjectionRun run;
    private final AsyncCallback<Object> events;
    /** Bumped at every load: completions of an earlier reader or commit carry an older one. */
    private int generation;
    /** The stored position the next batch comes after: loaded, or committed by this runner. */
    private long position = StoredPosition.NONE;
    private RecordReader<R> reader;
    /** Read, not yet committed: the next batch, at most max-records. */
    private final List<R> pending = new ArrayList<>();
    /** The batch being committed, or null. */
    private List<R> inFlight;
    private ProjectionBatchEvent batchEvent;
    private boolean waitingForMore;
    private boolean waitingVisible;
    /** The linger of the pending batch ran out. */
    private boolean lingered;
    private final FailurePolicy failures;
    private boolean stopping;

    Logic(ProjectionRun run) {
      super(shape);
      this.run = run;
      this.failures = new FailurePolicy(name, store, settings, run);
      this.events = createAsyncCallback(this::onEvent);
      run.attach(events);
      setHandler(out, new OutHandler() {
        @Override
        public void onPull() {
          tryCommit();
        }

        @Override
        public void onDownstreamFinish(Throwable cause) {
          requestStop();
        }
      });
    }

    @Override
    public void preStart() {
      run.useExecutor(materializer().executionContext());
      load();
    }

    @Override
    public void postStop() {
      closeReader();
      run.stopped(); // no-op when it stopped or failed already; else an abrupt end (the materializer shut down)
    }

    private void onEvent(Object event) {
      if (event == ProjectionRun.STOP) {
        requestStop();
      } else if (event instanceof Throwable abort) {
        FailurePolicy.LOG.info("projection '{}' ({}) aborted: {}", name, store.describe(), abort.toString());
        stopWith(abort);
      } else if (event instanceof Loaded l) {
        onLoaded(l);
      } else if (event instanceof More m) {
        onMore(m);
      } else if (event instanceof Durable d) {
        onDurable(d);
      } else if (event instanceof Committed c) {
        onCommitted(c);
      } else if (event instanceof Visible v) {
        onVisible(v);
      }
    }

    private void load() {
      generation++;
      closeReader();
      pending.clear();
      waitingForMore = false;
      waitingVisible = false;
      lingered = false;
      cancelTimer(LINGER);
      int g = generation;
      stage(() -> store.load(settings.offsetStore(), name))
          .whenComplete((stored, error) -> events.invoke(new Loaded(g, stored, error)));
    }

    private void onLoaded(Loaded l) {
      if (l.generation() != generation) {
        return;
      }
      if (stopping) {
        finish();
        return;
      }
      if (l.error() != null) {
        onFailure(unwrap(l.error()), null);
        return;
      }
      position = l.stored().position();
      run.advanced(position);
      try {
        reader = store.reader(name, position);
      } catch (RuntimeException e) {
        onFailure(e, null);
        return;
      }
      run.state = ProjectionState.RUNNING;
      read();
      tryCommit();
    }

    /** Reads up to a batch ahead (also while a batch commits); registers for more when the log has nothing yet. */
    private void read() {
      if (reader == null || waitingForMore || stopping) {
        return;
      }
      int room = settings.maxBatchRecords() - pending.size();
      if (room > 0) {
        List<R> got;
        try {
          got = reader.poll(room);
        } catch (RuntimeException e) {
          onFailure(e, null);
          return;
        }
        pending.addAll(got);
        if (got.size() < room) {
          waitingForMore = true;
          int g = generation;
          stage(reader::whenMore).whenComplete((v, error) -> events.invoke(new More(g, error)));
        }
      }
      showLag();
      if (!pending.isEmpty() && settings.maxBatchWait().compareTo(Duration.ZERO) > 0 && !lingered && !isTimerActive(LINGER)) {
        scheduleOnce(LINGER, settings.maxBatchWait());
      }
    }

    private void onMore(More m) {
      if (m.generation() != generation) {
        return;
      }
      waitingForMore = false;
      if (m.error() != null) {
        onFailure(unwrap(m.error()), null);
        return;
      }
      read();
      tryCommit();
    }

    @Override
    public void onTimer(Object key) {
      if (LINGER.equals(key)) {
        lingered = true;
        tryCommit();
      } else if (RESTART.equals(key)) {
        load();
      }
    }

    private void tryCommit() {
      if (reader == null || inFlight != null || waitingVisible || stopping || pending.isEmpty() || !isAvailable(out)) {
        return;
      }
      boolean full = pending.size() >= settings.maxBatchRecords();
      if (!full && settings.maxBatchWait().compareTo(Duration.ZERO) > 0 && !lingered) {
        return; // let it fill until the linger runs out
      }
      commit();
    }

    /** Takes the pending batch; commits it once its records are durable (at once, unless the log fsyncs). */
    private void commit() {
      cancelTimer(LINGER);
      lingered = false;
      inFlight = List.copyOf(pending);
      pending.clear();
      CompletionStage<Void> durable = stage(() -> store.whenDurable(inFlight.get(inFlight.size() - 1)));
      CompletableFuture<Void> d = durable.toCompletableFuture();
      if (d.isDone() && !d.isCompletedExceptionally()) {
        commitInFlight();
      } else {
        int g = generation;
        durable.whenComplete((v, error) -> events.invoke(new Durable(g, error)));
      }
      read(); // the next batch, while this one commits
    }

    private void onDurable(Durable d) {
      if (d.generation() != generation) {
        return;
      }
      if (d.error() != null) {
        List<R> batch = inFlight;
        inFlight = null;
        onFailure(unwrap(d.error()), batch);
      } else if (stopping) {
        inFlight = null; // nothing was committed: the next run starts from the stored position
        finish();
      } else {
        commitInFlight();
      }
    }

    private void commitInFlight() {
      List<R> batch = inFlight;
      long after = position;
      long through = store.position(batch.get(batch.size() - 1));
      batchEvent = new ProjectionBatchEvent();
      batchEvent.begin();
      ProjectionHandler<R, T> guarded = (transaction, records) -> {
        try {
          handler.handle(transaction, records);
        } catch (VirtualMachineError e) {
          throw e;
        } catch (Throwable e) {
          throw new ProjectionHandlerException(name, after, through, records.size(), e);
        }
      };
      int g = generation;
      stage(() -> store.commit(settings.offsetStore(), name, after, batch, guarded))
          .whenComplete((reference, error) -> events.invoke(new Committed(g, reference == null ? 0 : reference, error)));
    }

    private void onCommitted(Committed c) {
      if (c.generation() != generation) {
        return;
      }
      List<R> batch = inFlight;
      inFlight = null;
      long after = position;
      if (c.error() != null) {
        Throwable error = unwrap(c.error());
        recordBatch(error instanceof ProjectionConflictException ? "CONFLICTED" : "FAILED", batch, after);
        onFailure(error, batch);
        return;
      }
      position = store.position(batch.get(batch.size() - 1));
      run.batches++;
      run.records += batch.size();
      failures.succeeded();
      recordBatch("COMMITTED", batch, after);
      showLag();
      run.advanced(position);
      if (isAvailable(out)) {
        push(out, new ProjectionBatch<>(name, after, position, batch));
      }
      if (stopping) {
        finish();
        return;
      }
      waitingVisible = true;
      int g = generation;
      stage(() -> store.whenVisible(c.commit())).whenComplete((v, error) -> events.invoke(new Visible(g, error)));
      read();
    }

    private void onVisible(Visible v) {
      if (v.generation() != generation) {
        return;
      }
      waitingVisible = false;
      if (v.error() != null) {
        onFailure(unwrap(v.error()), null);
        return;
      }
      read();
      tryCommit();
    }

    /** A failed load, read, commit or wait: {@code batch} is the batch that failed, or null. */
    private void onFailure(Throwable error, List<R> batch) {
      if (stopping) { // asked to stop: nothing is retried; the next run starts from the stored position
        if (!(error instanceof ProjectionConflictException)) {
          run.lastError = ProjectionRun.describe(error);
        }
        finish();
        return;
      }
      FailurePolicy.Decision decision = failures.decide(error, step(batch), batch == null ? 0 : batch.size(), position);
      if (decision.stops()) {
        stopWith(error);
      } else {
        restartAfter(decision.delay(), decision.state());
      }
    }

    private String step(List<R> batch) {
      if (batch == null) {
        return reader == null ? "reading its stored position" : "reading the log after position " + position;
      }
      return "the batch of " + batch.size() + " records after position " + position + " (through "
          + store.position(batch.get(batch.size() - 1)) + ")";
    }

    private void stopWith(Throwable error) {
      closeReader();
      run.failed(error);
      failStage(error);
    }

    /**
     * Drops what was read and loads the stored position again after {@code delay}. A batch still
     * being committed (a read failed meanwhile) is left to its commit: whether it lands before the
     * load or after (then the next batch conflicts and loads again), the position read is the truth.
     */
    private void restartAfter(Duration delay, ProjectionState state) {
      run.state = state;
      generation++; // the reader's and any commit's completions are stale from now on
      closeReader();
      inFlight = null;
      batchEvent = null;
      pending.clear();
      waitingForMore = false;
      waitingVisible = false;
      cancelTimer(LINGER);
      if (delay.isZero()) {
        load();
      } else {
        scheduleOnce(RESTART, delay);
      }
    }

    private void requestStop() {
      if (stopping) {
        return;
      }
      stopping = true;
      cancelTimer(LINGER);
      cancelTimer(RESTART);
      if (inFlight == null) {
        finish();
      } else {
        setKeepGoing(true); // downstream may be gone: wait for the outcome of the batch being committed
      }
    }

    private void finish() {
      closeReader();
      run.stopped();
      completeStage();
    }

    private void closeReader() {
      if (reader != null) {
        try {
          reader.close();
        } catch (RuntimeException e) {
          FailurePolicy.LOG.debug("projection '{}': closing its reader failed", name, e);
        }
        reader = null;
      }
    }

    private void showLag() {
      List<R> oldest = inFlight != null ? inFlight : pending;
      run.oldestPending = oldest.isEmpty() ? -1 : store.timestamp(oldest.get(0));
    }

    private void recordBatch(String outcome, List<R> batch, long after) {
      ProjectionBatchEvent e = batchEvent;
      batchEvent = null;
      if (e != null) {
        e.end(name, store.describe(), batch.size(), after, store.position(batch.get(batch.size() - 1)), outcome,
            store.timestamp(batch.get(0)));
      }
    }
  }

  /** The stage {@code call} returns, or a failed one if it throws: every failure takes the same path. */
  private static <V> CompletionStage<V> stage(java.util.function.Supplier<CompletionStage<V>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

}
