package io.commitlane.txlog;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** Flight Recorder: one force (fsync) of a transaction log's segment under {@code fsync} durability. */
@Name("io.commitlane.LogSynced")
@Label("Log Synced")
@Category({"commitlane", "Transaction Log"})
@Description("One fsync of a transaction log: every record written before it is durable once it ends")
@StackTrace(false)
final class LogSyncedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  static final LogSyncedEvent TYPE = new LogSyncedEvent();

  @Label("Log") String log;
  @Label("Directory") String directory;
  @Label("Records") @Description("Records this fsync made durable") long records;
  @Label("Outcome") @Description("SYNCED, or FAILED (the log then refuses appends until reopened)") String outcome;

  /** A begun event, or null when the event type is disabled. */
  static LogSyncedEvent begin(String log, java.nio.file.Path directory) {
    if (!TYPE.isEnabled()) {
      return null;
    }
    LogSyncedEvent e = new LogSyncedEvent();
    e.log = log;
    e.directory = directory.toString();
    e.begin();
    return e;
  }

  static void end(LogSyncedEvent e, long records, boolean synced) {
    if (e == null) {
      return;
    }
    e.end();
    if (e.shouldCommit()) {
      e.records = records;
      e.outcome = synced ? "SYNCED" : "FAILED";
      e.commit();
    }
  }
}
