package io.commitlane.actors.internal.protocol;

import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.InvalidRequestException;
import io.commitlane.actors.UnknownLogException;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.BackupException;
import io.commitlane.storage.BackupRefusedException;
import io.commitlane.storage.CheckpointException;
import io.commitlane.storage.CheckpointRefusedException;
import io.commitlane.storage.CommitlaneException;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.InvalidStoreNameException;
import io.commitlane.storage.ReadOnlyDatabaseException;
import io.commitlane.storage.StoreDroppedException;
import io.commitlane.storage.UnknownStoreException;

/**
 * The protocol's one mapping from a failure to its refusal, for local and replicated databases
 * alike (a replicated database first maps its own failures: a replica that does not answer, a
 * refused commit, trimmed changes). A malformed request ({@link InvalidRequestException}, {@link
 * IllegalArgumentException}, a bad store name) is {@code INVALID_REQUEST}; a failure of the
 * database's own state or storage, {@link IllegalStateException} among them, is {@code STORAGE},
 * retryable when its exception says so.
 *
 * <p>INTERNAL API: shared by commitlane's modules; not for use outside them.
 */
@InternalApi
public final class Refusals {
  private Refusals() {}

  /**
   * Why a request failed, typed: what happened, and whether trying again may help. {@code closed}
   * is the reply for a closed database (null: {@code DATABASE_CLOSED}, not retryable).
   */
  public static Refusal of(Throwable e, Refusal closed) {
    if (e instanceof DatabaseClosedException) {
      return closed != null ? closed : new Failed(FailureReason.DATABASE_CLOSED, e.getMessage(), false);
    }
    if (e instanceof CommitQueueFullException q) {
      return new Failed(FailureReason.OVERLOADED, q.getMessage(), true);
    }
    if (e instanceof StoreDroppedException) {
      return new Failed(FailureReason.STORE_DROPPED, e.getMessage(), false);
    }
    if (e instanceof UnknownStoreException) {
      return new Failed(FailureReason.UNKNOWN_STORE, e.getMessage(), false);
    }
    if (e instanceof UnknownLogException) {
      return new Failed(FailureReason.UNKNOWN_LOG, e.getMessage(), false);
    }
    if (e instanceof ReadOnlyDatabaseException) {
      return new Failed(FailureReason.READ_ONLY, e.getMessage(), false);
    }
    if (e instanceof BackupException b && b.isOutOfSpace() || e instanceof CheckpointException c && c.isOutOfSpace()) {
      return new Failed(FailureReason.NO_SPACE, e.getMessage(), false);
    }
    if (e instanceof BackupRefusedException r && r.reason() == BackupRefusedException.Reason.IN_USE) {
      return new Failed(FailureReason.IN_USE, e.getMessage(), true);
    }
    if (e instanceof BackupRefusedException r && r.reason() == BackupRefusedException.Reason.INVALID_PATH
        || e instanceof CheckpointRefusedException) {
      return new Failed(FailureReason.INVALID_REQUEST, e.getMessage(), false);
    }
    if (e instanceof InvalidRequestException || e instanceof InvalidStoreNameException || e instanceof IllegalArgumentException) {
      return new Failed(FailureReason.INVALID_REQUEST, String.valueOf(e.getMessage()), false);
    }
    boolean retryable = e instanceof CommitlaneException c && c.isRetryable();
    return new Failed(FailureReason.STORAGE, e.toString(), retryable);
  }}
