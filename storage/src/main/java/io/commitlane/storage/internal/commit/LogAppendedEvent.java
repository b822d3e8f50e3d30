package io.commitlane.storage.internal.commit;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** Flight Recorder: the commit hooks' before-write step, where a logged commit appends its log record. */
@Name("io.commitlane.LogAppended")
@Label("Log Appended")
@Category({"commitlane", "Commit"})
@Description("A logged commit's transaction-log record appended, under the commit's locks")
@StackTrace(false)
@Enabled(false) // one per commit: off unless a recording enables it (CommitlaneEvents.enableAll)
final class LogAppendedEvent extends jdk.jfr.Event {
  static final LogAppendedEvent TYPE = new LogAppendedEvent();

  @Label("Database") String database;
  @Label("Transaction Id") long transactionId;
  @Label("Log") String log;
  @Label("Entries") int entries;
}
