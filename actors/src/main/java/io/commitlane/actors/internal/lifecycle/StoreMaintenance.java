package io.commitlane.actors.internal.lifecycle;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.internal.pipeline.CommitFuture;
import io.commitlane.actors.internal.pipeline.Pipeline;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.RangeClear;
import io.commitlane.storage.Transaction;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.pekko.Done;

/**
 * Compactions and clears of a {@link CommitlaneDatabase}, each on a thread of its own: they can run
 * for minutes, so neither the caller, a commit executor nor a Pekko dispatcher is held by one.
 * They are rare operator actions, so a thread per request costs nothing that matters. Outcomes
 * are delivered on the completion dispatcher.
 */
public final class StoreMaintenance {
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final CommitlaneDatabase database;
  private final Pipeline pipeline;

  public StoreMaintenance(CommitlaneDatabase database, Pipeline pipeline) {
    this.database = database;
    this.pipeline = pipeline;
  }

  public CompletionStage<Done> compact(KeyRange range, boolean bottommost) {
    return run("compact", () -> {
      pipeline.db().compact(range, bottommost);
      return Done.getInstance();
    });
  }

  /**
   * The clear's transaction committed with {@link CommitlaneDatabase#commitSync} (the pipeline's
   * log durability included), run again on conflict as {@link RangeClear} describes.
   */
  public CompletionStage<Long> clear(RangeClear clear) {
    return run("clear", () -> {
      for (int attempt = 0; ; attempt++) {
        Transaction txn = database.begin();
        try {
          long removed = clear.apply(txn);
          database.commitSync(txn);
          return removed;
        } catch (ConflictException e) {
          if (attempt >= RangeClear.MAX_RETRIES) {
            throw new ConflictException(e.transactionId(), attempt + 1);
          }
        } finally {
          txn.close();
        }
      }
    });
  }

  private <T> CompletionStage<T> run(String what, Supplier<T> task) {
    CommitFuture<T> f = new CommitFuture<>(pipeline.completions());
    Thread t = new Thread(() -> {
      try {
        f.complete(task.get());
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    }, "commitlane-" + what + "-" + pipeline.db().path().getFileName() + "-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    t.start();
    return f;
  }
}
