package io.commitlane.storage.internal.commit;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.CommitStage;

/**
 * Observes every commit at every {@link CommitStage}. Runs on the committing thread, so it can
 * hold a commit at a stage (a barrier), delay it, or fail it by throwing. Before {@link
 * CommitStage#WRITTEN} a thrown exception fails the commit and nothing is written; from {@code
 * WRITTEN} on the data is already written and the exception only replaces the caller's success
 * (a lost acknowledgement). At {@code VALIDATED} and {@code LOG_APPENDED} the commit holds its
 * locks: a listener that blocks there blocks every commit touching the same buckets.
 *
 * <p>Installed listeners cost a volatile read per stage; with none installed nothing else runs.
 *
 * <p>INTERNAL API: a seam for commitlane's own modules, not for applications.
 */
@FunctionalInterface
@InternalApi
public interface StageListener {
  void onStage(CommitStage stage, PendingCommit commit);
}
