package io.commitlane.actors;

import io.commitlane.actors.internal.pipeline.CommitQueue;

/**
 * A place in line for a database's commit queue, from {@link CommitlaneDatabase#awaitAdmission}:
 * the waiting alternative to {@link CommitQueueFullException}. Once the queue has room for one
 * more commit, the ticket is granted (that room is held for it) and its callback runs; commit
 * with {@link CommitlaneDatabase#commit(io.commitlane.storage.Transaction, AdmissionTicket)}, or
 * {@link #cancel()} to give the room back.
 *
 * <p>Tickets are granted in the order they were taken, one per place that frees: a waiter that
 * freed room is never overtaken by one that came later. A plain {@link
 * CommitlaneDatabase#commit(io.commitlane.storage.Transaction)} may still take room that is free
 * when it arrives (it never waits), so plain callers are not locked out by waiting streams.
 *
 * <p>Thread-safe. The callback runs on the thread that freed the room (a commit executor, or the
 * caller of {@code awaitAdmission} or {@code cancel}): it must only hand the news over, never
 * commit or block there.
 */
public final class AdmissionTicket {
  private final CommitQueue queue;
  private final Runnable onGranted;
  /** Guarded by the queue's waiter lock. */
  @io.commitlane.annotation.InternalApi
  public boolean granted;
  /** Guarded by the queue's waiter lock: committed with, or cancelled. */
  @io.commitlane.annotation.InternalApi
  public boolean ended;

  @io.commitlane.annotation.InternalApi
  public AdmissionTicket(CommitQueue queue, Runnable onGranted) {
    this.queue = queue;
    this.onGranted = onGranted;
  }

  @io.commitlane.annotation.InternalApi
  public CommitQueue queue() {
    return queue;
  }

  @io.commitlane.annotation.InternalApi
  public void granted() {
    onGranted.run();
  }

  /** Whether the queue holds room for this ticket (its callback has run or is running). */
  public boolean isGranted() {
    synchronized (queue.waiterLock()) {
      return granted;
    }
  }

  /**
   * Leave the line, or give back granted room that was not used; a no-op once the ticket was
   * committed with or cancelled. Given-back room goes to the next ticket in line.
   */
  public void cancel() {
    queue.cancel(this);
  }
}
