package io.commitlane.actors.internal.events;

import io.commitlane.actors.CommitlaneEvents;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** Flight Recorder: a commit taken from the queue by a commit executor (the event thread). */
@Name("io.commitlane.CommitDequeued")
@Label("Commit Dequeued")
@Category({"commitlane", "Commit"})
@Description("A commit taken from the queue by a commit executor (the event thread)")
@StackTrace(false)
@Enabled(false) // one per commit: off unless a recording enables it (CommitlaneEvents.enableAll)
public final class CommitDequeuedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  public static final CommitDequeuedEvent TYPE = new CommitDequeuedEvent();

  public @Label("Database") String database;
  public @Label("Transaction Id") long transactionId;
  public @Label("Queue Wait") @Description("From admission to an executor taking the commit") @Timespan(Timespan.NANOSECONDS) long queueWait;
  @Label("Group Size") @Description("Commits executed together as one merged write group (1 for a lone commit)") public int groupSize;
}
