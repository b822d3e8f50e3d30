package io.commitlane.txlog.internal.append;

import java.nio.file.Path;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Flight Recorder: one force (fsync) of a transaction-log segment file, whatever asked for it (the
 * group commit under {@code fsync} durability, a full segment at a switch, the last one at close).
 */
@Name("io.commitlane.LogSynced")
@Label("Log Synced")
@Category({"commitlane", "Transaction Log"})
@Description("One fsync of a transaction-log segment: every record written to it before the fsync began is durable once it ends")
@StackTrace(false)
public final class LogSyncedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  static final LogSyncedEvent TYPE = new LogSyncedEvent();

  @Label("Log") @Description("The transaction log's name") String log;
  @Label("Segment") @Description("The segment file forced") String segment;
  @Label("Outcome") @Description("SYNCED, or FAILED (the log then refuses appends until reopened)") String outcome;

  /** A begun event, or null when the event type is disabled. */
  public static LogSyncedEvent beginIfEnabled() {
    if (!TYPE.isEnabled()) {
      return null;
    }
    LogSyncedEvent e = new LogSyncedEvent();
    e.begin();
    return e;
  }

  public static void endAndCommit(LogSyncedEvent e, Path segment, boolean synced) {
    if (e == null) {
      return;
    }
    e.end();
    if (e.shouldCommit()) {
      Path dir = segment.getParent();
      e.log = dir == null || dir.getFileName() == null ? "" : dir.getFileName().toString();
      e.segment = segment.toString();
      e.outcome = synced ? "SYNCED" : "FAILED";
      e.commit();
    }
  }
}
