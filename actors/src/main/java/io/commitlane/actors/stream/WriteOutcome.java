package io.commitlane.actors.stream;

import io.commitlane.storage.CommitResult;

/**
 * What {@link CommitFlow} emits for each {@link WriteRequest}: exactly one outcome per request.
 *
 * <pre>{@code
 * if (outcome instanceof WriteOutcome.Committed<String> ok) { ... ok.result().version() ... }
 * else if (outcome instanceof WriteOutcome.Failed<String> failed) { ... failed.cause() ... }
 * }</pre>
 *
 * @param <C> the correlation value's type
 */
public sealed interface WriteOutcome<C> permits WriteOutcome.Committed, WriteOutcome.Failed {
  WriteRequest<C> request();

  /** Attempts made: 1 unless conflicts were retried. Commits the full queue did not admit are not attempts. */
  int attempts();

  default C correlation() {
    return request().correlation();
  }

  default boolean isCommitted() {
    return this instanceof Committed;
  }

  /** Written (and, with {@code fsync} log durability, synced). */
  record Committed<C>(WriteRequest<C> request, CommitResult result, int attempts) implements WriteOutcome<C> {}

  /**
   * Not written. {@code cause} is a {@link io.commitlane.storage.ConflictException} once the
   * conflict retries are spent (its {@code attempts()} says how many), a {@link
   * io.commitlane.storage.DatabaseClosedException}, what the request's body threw, or the
   * storage/log failure. Never a {@link io.commitlane.actors.CommitQueueFullException}: a full
   * queue backpressures instead.
   */
  record Failed<C>(WriteRequest<C> request, Throwable cause, int attempts) implements WriteOutcome<C> {}
}
