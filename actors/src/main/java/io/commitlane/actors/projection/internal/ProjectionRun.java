package io.commitlane.actors.projection.internal;

import io.commitlane.actors.internal.pipeline.DispatcherFuture;
import io.commitlane.actors.projection.ProjectionControl;
import io.commitlane.actors.projection.ProjectionState;
import io.commitlane.actors.projection.ProjectionStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.pekko.Done;
import org.apache.pekko.stream.stage.AsyncCallback;

/**
 * One materialization of a projection: what {@link ProjectionControl} shows of it. The stage's
 * thread is the only writer of the status fields (volatile, so any thread reads a recent value);
 * requests to stop reach the stage through its async callback.
 */
final class ProjectionRun implements ProjectionControl {
  /** What {@link #stop()} sends the stage; an abort sends its Throwable. */
  static final Object STOP = new Object();

  private final String projection;
  /** The stream's dispatcher, once the stage started; until then callbacks run where the future completes. */
  private volatile Executor executor;
  private final CompletableFuture<Done> stopped = new DispatcherFuture<>(this::execute);
  private volatile AsyncCallback<Object> commands;
  /** Callers of {@link #whenThrough}, by the position they wait for. */
  private final TreeMap<Long, List<CompletableFuture<Done>>> waiters = new TreeMap<>(); // guarded by this
  private boolean ended; // guarded by this

  volatile ProjectionState state = ProjectionState.STARTING;
  volatile long position = StoredPosition.NONE;
  /** The timestamp of the oldest record read and not yet committed, or -1 when there is none. */
  volatile long oldestPending = -1;
  volatile long batches;
  volatile long records;
  volatile long conflicts;
  volatile long restarts;
  volatile String lastError;

  ProjectionRun(String projection) {
    this.projection = projection;
  }

  void attach(AsyncCallback<Object> commands) {
    this.commands = commands;
  }

  void useExecutor(Executor executor) {
    this.executor = executor;
  }

  private void execute(Runnable task) {
    Executor e = executor;
    if (e == null) {
      task.run();
      return;
    }
    try {
      e.execute(task);
    } catch (RejectedExecutionException shuttingDown) {
      task.run(); // the actor system is terminating: complete here rather than never
    }
  }

  /** The stored position is {@code position} now (loaded or committed): completes the waiters it reached. */
  void advanced(long position) {
    this.position = position;
    List<CompletableFuture<Done>> reached = new ArrayList<>();
    synchronized (this) {
      SortedMap<Long, List<CompletableFuture<Done>>> head = waiters.headMap(position, true);
      head.values().forEach(reached::addAll);
      head.clear();
    }
    reached.forEach(f -> execute(() -> f.complete(Done.getInstance())));
  }

  void stopped() {
    if (state != ProjectionState.FAILED) {
      state = ProjectionState.STOPPED;
    }
    end(null);
  }

  void failed(Throwable error) {
    state = ProjectionState.FAILED;
    lastError = describe(error);
    end(error);
  }

  /** Completes {@link #whenStopped()} and fails the waiters the projection will not reach now; on the stream's dispatcher. */
  private void end(Throwable error) {
    List<CompletableFuture<Done>> unreached = new ArrayList<>();
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
      waiters.values().forEach(unreached::addAll);
      waiters.clear();
    }
    long at = position;
    execute(() -> {
      if (error == null) {
        stopped.complete(Done.getInstance());
      } else {
        stopped.completeExceptionally(error);
      }
      unreached.forEach(f -> f.completeExceptionally(new IllegalStateException("projection '" + projection + "' stopped at"
          + " position " + at + " before it reached the position waited for" + (error == null ? "" : ": " + describe(error)),
          error)));
    });
  }

  static String describe(Throwable error) {
    return error.getClass().getSimpleName() + ": " + error.getMessage();
  }

  @Override
  public String projection() {
    return projection;
  }

  @Override
  public ProjectionStatus status() {
    long pending = oldestPending;
    Duration lag = pending < 0 ? Duration.ZERO : Duration.ofMillis(Math.max(0, System.currentTimeMillis() - pending));
    return new ProjectionStatus(projection, state, position, lag, batches, records, conflicts, restarts, lastError);
  }

  @Override
  public CompletionStage<Done> stop() {
    send(STOP);
    return stopped;
  }

  @Override
  public CompletionStage<Done> whenStopped() {
    return stopped;
  }

  @Override
  public CompletionStage<Done> whenThrough(long position) {
    CompletableFuture<Done> f = new DispatcherFuture<>(this::execute);
    boolean reached;
    synchronized (this) {
      reached = this.position >= position;
      if (!reached && !ended) {
        waiters.computeIfAbsent(position, p -> new ArrayList<>()).add(f);
        return f;
      }
    }
    if (reached) {
      f.complete(Done.getInstance());
    } else {
      f.completeExceptionally(new IllegalStateException("projection '" + projection + "' has stopped, at position "
          + this.position + ", before position " + position));
    }
    return f;
  }

  @Override
  public void shutdown() {
    stop();
  }

  @Override
  public void abort(Throwable error) {
    send(java.util.Objects.requireNonNull(error, "error"));
  }

  private void send(Object command) {
    AsyncCallback<Object> c = commands;
    boolean over;
    synchronized (this) {
      over = ended;
    }
    if (c != null && !over) {
      c.invoke(command); // dropped by Pekko if the stage stopped meanwhile: then it is done anyway
    }
  }

  @Override
  public String toString() {
    return "ProjectionControl[" + status() + "]";
  }
}
