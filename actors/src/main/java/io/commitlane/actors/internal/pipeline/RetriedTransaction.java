package io.commitlane.actors.internal.pipeline;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.Retry;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Transaction;
import io.commitlane.storage.TransactionFunction;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.dispatch.ExecutionContexts;

/**
 * One {@link CommitlaneDatabase#transactAsync(Retry, TransactionFunction)}: the body runs in a
 * fresh transaction, which is committed through the handle's gate; on conflict it runs again
 * after the retry's backoff (a timer: nothing waits), up to the retry's attempts. The first
 * attempt runs on the calling thread, retries on the completion dispatcher.
 */
public final class RetriedTransaction<T> {
  private final Pipeline pipeline;
  private final AdmissionGate gate;
  private final Supplier<Transaction> begin;
  private final Scheduler scheduler;
  private final Retry retry;
  private final TransactionFunction<T> body;
  private final CommitFuture<T> result;

  public RetriedTransaction(Pipeline pipeline, AdmissionGate gate, Supplier<Transaction> begin, Scheduler scheduler, Retry retry,
      TransactionFunction<T> body) {
    this.pipeline = pipeline;
    this.gate = gate;
    this.begin = begin;
    this.scheduler = scheduler;
    this.retry = retry;
    this.body = body;
    this.result = new CommitFuture<>(pipeline.completions());
  }

  /** Run the first attempt; the stage completes with the body's value once an attempt committed. */
  public CompletionStage<T> start() {
    attempt(1);
    return result;
  }

  private void attempt(int attempt) {
    T value;
    Transaction txn;
    try {
      txn = begin.get();
      try {
        value = body.apply(txn);
      } catch (RuntimeException | Error e) {
        txn.abort();
        throw e;
      }
    } catch (Throwable e) {
      result.completeExceptionally(e);
      return;
    }
    pipeline.commit(txn, gate).whenComplete((r, err) -> {
      Throwable cause = unwrap(err);
      if (cause == null) {
        result.complete(value);
      } else if (cause instanceof ConflictException && attempt < retry.maxAttempts()) {
        pipeline.retries().increment();
        Duration delay = retry.delay(attempt);
        Runnable next = () -> attempt(attempt + 1);
        if (delay.isZero()) {
          next.run();
        } else {
          scheduler.scheduleOnce(delay, next, ExecutionContexts.fromExecutor(pipeline.completions()));
        }
      } else if (cause instanceof ConflictException c) {
        result.completeExceptionally(attempt == 1 ? c : new ConflictException(c.transactionId(), attempt));
      } else {
        result.completeExceptionally(cause);
      }
    });
  }
}
