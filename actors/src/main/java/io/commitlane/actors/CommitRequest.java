package io.commitlane.actors;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Transaction;
import org.apache.pekko.actor.typed.ActorRef;

/** One admitted commit: the transaction and where its outcome goes. */
final class CommitRequest {
  /** Where an outcome is delivered: a future, or an actor. Runs on the thread that executed the commit. */
  interface Completion {
    void committed(CommitResult result);

    void failed(Throwable cause);
  }

  final Transaction txn;
  final Completion completion;
  final long admittedNanos = System.nanoTime();

  CommitRequest(Transaction txn, Completion completion) {
    this.txn = txn;
    this.completion = completion;
  }

  static Completion toFuture(CommitFuture<CommitResult> future) {
    return new Completion() {
      @Override
      public void committed(CommitResult result) {
        future.complete(result);
      }

      @Override
      public void failed(Throwable cause) {
        future.completeExceptionally(cause);
      }
    };
  }

  static Completion toActor(long transactionId, ActorRef<CommitReply> replyTo) {
    return new Completion() {
      @Override
      public void committed(CommitResult result) {
        replyTo.tell(new CommitReply.Committed(transactionId, result));
      }

      @Override
      public void failed(Throwable cause) {
        replyTo.tell(Replies.of(transactionId, cause));
      }
    };
  }
}
