package io.commitlane.actors.internal.pipeline;

import io.commitlane.actors.internal.protocol.RequestLedger;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.StoreClaims;
import io.commitlane.storage.Transaction;

/**
 * One admitted commit: the transaction, what its outcome settles, where its reply goes, and the
 * admission gate of the handle that admitted it (which counts it until its outcome is delivered).
 *
 * <p>{@link #complete} is the one step that delivers an outcome, in this order: the named stores
 * the commit claimed go back ({@link #claims}), the request id's attempt is settled in the ledger
 * ({@link #attempt}), then the reply is told ({@link #reply}). Before it, whoever delivers has
 * waited for the log record's durability ({@link CommitRunner.Outcome#deliver}); after it, the
 * gate counts the commit completed.
 */
public final class CommitRequest {
  /** Where an outcome is delivered: a future, or an actor. Runs on the thread that executed the commit. */
  public interface Completion {
    void committed(CommitResult result);

    void failed(Throwable cause);
  }

  final Transaction txn;
  /**
   * The request id's attempt this commit is (its write records the id), or null. It is bound to
   * the transaction before admission, and unbound when the outcome is delivered.
   */
  final RequestLedger.Attempt attempt;
  /** Where the outcome goes, last. */
  final Completion reply;
  final AdmissionGate gate;
  /**
   * The named stores the transaction writes, claimed at admission so none is physically dropped
   * under it, or null when it claimed none. Set by the admitting thread before the request is
   * queued; given back when the outcome is delivered (commitSync gives them back itself when it
   * ends, so this matters for commits that never ran).
   */
  StoreClaims claims;
  final long admittedNanos = System.nanoTime();
  /** When an executor took it off the admission queue (set by that executor; a two-lane write reads it after the hand-off). */
  long dequeuedNanos;

  CommitRequest(Transaction txn, RequestLedger.Attempt attempt, Completion reply, AdmissionGate gate) {
    this.txn = txn;
    this.attempt = attempt;
    this.reply = reply;
    this.gate = gate;
  }

  CommitRequest(Transaction txn, Completion reply, AdmissionGate gate) {
    this(txn, null, reply, gate);
  }

  /**
   * Deliver the commit's outcome: {@code failure}, or (when it is null) {@code result}. Gives the
   * claimed stores back, settles the request id's attempt, then tells the reply; on the thread that
   * completed the commit (a commit executor, the log's force thread, or a closing queue's).
   */
  void complete(CommitResult result, Throwable failure) {
    if (claims != null) {
      claims.release();
    }
    if (attempt != null) {
      attempt.settled(txn.id(), failure);
    }
    if (failure == null) {
      reply.committed(result);
    } else {
      reply.failed(failure);
    }
  }

  /** The commit failed before it was queued, or was never run: {@link #complete} with {@code cause}. */
  void failed(Throwable cause) {
    complete(null, cause);
  }
}
