package io.commitlane.actors.internal.events;

import io.commitlane.actors.CommitlaneEvents;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** Flight Recorder: a commit's outcome delivered to its caller. */
@Name("io.commitlane.CommitAcknowledged")
@Label("Commit Acknowledged")
@Category({"commitlane", "Commit"})
@Description("A commit's outcome delivered to its caller")
@StackTrace(false)
@Enabled(false) // one per commit: off unless a recording enables it (CommitlaneEvents.enableAll)
public final class CommitAcknowledgedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  public static final CommitAcknowledgedEvent TYPE = new CommitAcknowledgedEvent();

  public @Label("Database") String database;
  public @Label("Transaction Id") long transactionId;
  @Label("Outcome") @Description("COMMITTED, CONFLICTED, FAILED or NOT_DURABLE (written, but the log could not vouch for it)") public String outcome;
  public @Label("Queue Wait") @Description("From admission to an executor taking the commit") @Timespan(Timespan.NANOSECONDS) long queueWait;
  public @Label("Execution") @Description("From an executor taking the commit to its outcome: validation, log append, write, durability wait") @Timespan(Timespan.NANOSECONDS) long execution;
}
