package io.commitlane.actors;

import io.commitlane.storage.ConflictException;
import java.util.concurrent.CompletionException;

/** Maps a commit failure to the typed reply an actor caller gets. */
final class Replies {
  private Replies() {}

  static CommitReply of(long transactionId, Throwable cause) {
    Throwable c = cause instanceof CompletionException && cause.getCause() != null ? cause.getCause() : cause;
    if (c instanceof ConflictException) {
      return new CommitReply.Conflicted(transactionId);
    }
    if (c instanceof CommitQueueFullException full) {
      return new CommitReply.Overloaded(transactionId, full.capacity());
    }
    return new CommitReply.Failed(transactionId, c);
  }
}
