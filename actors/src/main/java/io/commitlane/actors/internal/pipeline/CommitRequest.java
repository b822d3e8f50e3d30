package io.commitlane.actors.internal.pipeline;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Transaction;

/**
 * One admitted commit: the transaction, where its outcome goes, and the admission gate of the
 * handle that admitted it (which counts it until its outcome is delivered).
 */
public final class CommitRequest {
  /** Where an outcome is delivered: a future, or an actor. Runs on the thread that executed the commit. */
  public interface Completion {
    void committed(CommitResult result);

    void failed(Throwable cause);
  }

  final Transaction txn;
  final Completion completion;
  final AdmissionGate gate;
  final long admittedNanos = System.nanoTime();
  /** When an executor took it off the admission queue (set by that executor; a two-lane write reads it after the hand-off). */
  long dequeuedNanos;

  CommitRequest(Transaction txn, Completion completion, AdmissionGate gate) {
    this.txn = txn;
    this.completion = completion;
    this.gate = gate;
  }
}
