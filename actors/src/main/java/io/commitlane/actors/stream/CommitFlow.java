package io.commitlane.actors.stream;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.stream.internal.WriteCommitter;
import java.util.Objects;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Flow;

/**
 * Flows that commit {@link WriteRequest}s on a database's commit executors and emit one {@link
 * WriteOutcome} per request.
 *
 * <pre>{@code
 * Source.from(orders)
 *     .map(o -> WriteRequest.builder(o.id()).put(o.key(), o.bytes()).build())
 *     .via(CommitFlow.ordered(db, CommitFlowSettings.defaults().withParallelism(16)))
 *     .runForeach(outcome -> ..., system);
 * }</pre>
 *
 * <p><b>Backpressure, not buffering.</b> At most {@code parallelism} requests are taken from
 * upstream and not yet emitted. When the database's commit queue is full, the flow stops pulling
 * and waits in the database's line ({@link io.commitlane.actors.CommitlaneDatabase#awaitAdmission}):
 * the moment a commit leaves the queue, the place is held for the waiter first in line and the
 * flow commits into it. Streams and waiting callers of one database take turns in arrival order;
 * nothing polls, nothing is buffered without bound, dropped, or reported as overload.
 * Conflicts are retried per {@link ConflictRetry}; a request that still fails becomes a {@link
 * WriteOutcome.Failed} element or fails the stream, per {@link FailureMode}. If upstream fails,
 * the requests already taken finish and are emitted first.
 *
 * <p><b>Threads.</b> Request bodies run on the stream's dispatcher (the materializer's unless
 * the {@code dispatcher} attribute says otherwise); commits run on the commit executors; no user
 * code runs on a commit thread. A request's transaction is built just before each attempt, so a
 * request waiting for admission or a retry holds no snapshot.
 *
 * <p>Each materialization is independent; the flows can be reused.
 */
public final class CommitFlow {
  private CommitFlow() {}

  /** Outcomes in request order (an early slow commit holds back later outcomes, not later commits). */
  public static <C> Flow<WriteRequest<C>, WriteOutcome<C>, NotUsed> ordered(CommitlaneDatabase db, CommitFlowSettings settings) {
    return Flow.fromGraph(new WriteCommitter<C>(Objects.requireNonNull(db, "db"), Objects.requireNonNull(settings, "settings"), true));
  }

  /** Outcomes as commits complete. */
  public static <C> Flow<WriteRequest<C>, WriteOutcome<C>, NotUsed> unordered(CommitlaneDatabase db, CommitFlowSettings settings) {
    return Flow.fromGraph(new WriteCommitter<C>(Objects.requireNonNull(db, "db"), Objects.requireNonNull(settings, "settings"), false));
  }

  /** {@link #ordered(CommitlaneDatabase, CommitFlowSettings)} with {@link CommitFlowSettings#defaults()}. */
  public static <C> Flow<WriteRequest<C>, WriteOutcome<C>, NotUsed> ordered(CommitlaneDatabase db) {
    return ordered(db, CommitFlowSettings.defaults());
  }

  /** {@link #unordered(CommitlaneDatabase, CommitFlowSettings)} with {@link CommitFlowSettings#defaults()}. */
  public static <C> Flow<WriteRequest<C>, WriteOutcome<C>, NotUsed> unordered(CommitlaneDatabase db) {
    return unordered(db, CommitFlowSettings.defaults());
  }
}
