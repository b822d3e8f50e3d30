package io.commitlane.actors.internal.lifecycle;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.internal.pipeline.Pipeline;
import io.commitlane.storage.BackupCancelledException;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.BackupProgress;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.CheckpointInfo;
import io.commitlane.storage.Database;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Checkpoints and backups of an open database ({@link CommitlaneDatabase#checkpoint}, {@link
 * CommitlaneDatabase#backup}): each copy runs on the lifecycle dispatcher, never on the caller's
 * thread, and its outcome is delivered on the completion dispatcher.
 */
public final class DatabaseCopies {
  private final Pipeline pipeline;
  private final Executor lifecycle;

  public DatabaseCopies(Pipeline pipeline, Executor lifecycle) {
    this.pipeline = pipeline;
    this.lifecycle = lifecycle;
  }

  /** A checkpoint into {@code target}: see {@link CommitlaneDatabase#checkpoint}. */
  public CompletionStage<CheckpointInfo> checkpoint(Path target) {
    Database storage = pipeline.db();
    return CompletableFuture.supplyAsync(() -> storage.checkpoint(target), lifecycle)
        .whenCompleteAsync((info, failure) -> { }, pipeline.completions());
  }

  /**
   * A backup into the store {@code store} gives, looked at on the lifecycle dispatcher: see {@link
   * CommitlaneDatabase#backup(BackupStore, BackupProgress)}.
   */
  public CompletableFuture<BackupInfo> backup(
      java.util.function.Supplier<BackupStore> store, BackupProgress progress) {
    Database storage = pipeline.db();
    Executor completions = pipeline.completions();
    BackupFuture result = new BackupFuture();
    lifecycle.execute(() -> {
      try {
        BackupInfo info = store.get().create(storage, progress, () -> result.cancelRequested);
        completions.execute(() -> result.complete(info));
      } catch (BackupCancelledException e) {
        completions.execute(result::stopped);
      } catch (RuntimeException | Error e) {
        completions.execute(() -> result.completeExceptionally(e));
      }
    });
    return result;
  }

  /** A backup's future: {@code cancel} asks the backup to stop; the future is cancelled once it has. */
  private static final class BackupFuture extends CompletableFuture<BackupInfo> {
    volatile boolean cancelRequested;

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      cancelRequested = true;
      return !isDone();
    }

    void stopped() {
      super.cancel(false);
    }
  }
}
