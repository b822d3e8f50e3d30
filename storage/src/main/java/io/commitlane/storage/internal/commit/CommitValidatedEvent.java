package io.commitlane.storage.internal.commit;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Flight Recorder: a transaction's optimistic validation, from taking its locks to the decision.
 * Its duration includes waiting for the lock buckets (or the serial commit lock).
 */
@Name("io.commitlane.CommitValidated")
@Label("Commit Validated")
@Category({"commitlane", "Commit"})
@Description("Optimistic validation of one transaction, lock wait included; outcome VALIDATED or CONFLICTED")
@StackTrace(false)
@Enabled(false) // one per commit: off unless a recording enables it (CommitlaneEvents.enableAll)
final class CommitValidatedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  static final CommitValidatedEvent TYPE = new CommitValidatedEvent();

  @Label("Database") String database;
  @Label("Transaction Id") long transactionId;
  @Label("Outcome") String outcome;
  @Label("Keys Written") int keysWritten;
  @Label("Keys Read") int keysRead;
  @Label("Group Size") @Description("Commits merged into one write with this one (1 for a lone commit)") int groupSize;
}
