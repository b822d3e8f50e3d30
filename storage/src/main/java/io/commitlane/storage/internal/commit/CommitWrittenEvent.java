package io.commitlane.storage.internal.commit;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Flight Recorder: the RocksDB write of a validated commit. Members of a merged group share one
 * write: each gets an event with the same duration and the group's size.
 */
@Name("io.commitlane.CommitWritten")
@Label("Commit Written")
@Category({"commitlane", "Commit"})
@Description("The RocksDB write of a validated transaction (shared by the members of a merged group)")
@StackTrace(false)
@Enabled(false) // one per commit: off unless a recording enables it (CommitlaneEvents.enableAll)
final class CommitWrittenEvent extends jdk.jfr.Event {
  static final CommitWrittenEvent TYPE = new CommitWrittenEvent();

  @Label("Database") String database;
  @Label("Transaction Id") long transactionId;
  @Label("Outcome") @Description("WRITTEN, or FAILED when RocksDB refused the write") String outcome;
  @Label("Keys Written") int keysWritten;
  @Label("Group Size") int groupSize;
}
