package io.commitlane.actors.internal.events;

import io.commitlane.actors.CommitlaneEvents;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** Flight Recorder: a commit accepted into its database's bounded commit queue. */
@Name("io.commitlane.CommitAdmitted")
@Label("Commit Admitted")
@Category({"commitlane", "Commit"})
@Description("A commit accepted into its database's bounded commit queue")
@StackTrace(false)
@Enabled(false) // one per commit: off unless a recording enables it (CommitlaneEvents.enableAll)
public final class CommitAdmittedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  public static final CommitAdmittedEvent TYPE = new CommitAdmittedEvent();

  public @Label("Database") String database;
  public @Label("Transaction Id") long transactionId;
  public @Label("Queue Depth") @Description("Commits queued, this one included") int queueDepth;
}
