package io.commitlane.actors.projection;

import java.util.List;

/**
 * What a projection does with a batch of records: it reads and writes through {@code transaction},
 * which the runner commits together with the projection's new position, so the writes and the
 * position are stored together or not at all. It must not commit or abort the transaction.
 *
 * <p>It runs on the projection's dispatcher ({@code commitlane.projection.dispatcher}, blocking
 * allowed), one batch at a time. A batch can be handed to it again, on a fresh transaction, when
 * the first attempt did not commit (a conflict, a failure, a crash before the commit): writes
 * through the transaction are applied exactly once, anything else it does (a message sent, a file
 * written) may happen more than once.
 *
 * @param <R> the record type of the projection's log
 * @param <T> the transaction type of the projection's database
 */
@FunctionalInterface
public interface ProjectionHandler<R, T> {
  /**
   * Add the batch's writes to {@code transaction}. Throwing aborts the batch; see {@link
   * ProjectionSettings#onHandlerFailure()}.
   */
  void handle(T transaction, List<R> records) throws Exception;
}
