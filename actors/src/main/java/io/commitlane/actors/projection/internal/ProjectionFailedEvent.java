package io.commitlane.actors.projection.internal;

import io.commitlane.actors.projection.Projection;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** Flight Recorder: a projection's batch failed (not a conflict), and what the runner does about it. */
@Name("io.commitlane.ProjectionFailed")
@Label("Projection Failed")
@Category({"commitlane", "Projection"})
@Description("A projection's batch failed (not a conflict), and what the runner does about it")
@StackTrace(false)
final class ProjectionFailedEvent extends jdk.jfr.Event {
  @Label("Projection") String projection;
  @Label("Source") @Description("The log and database it reads") String source;
  @Label("After") @Description("The stored position the failed step came after (-1: none)") long after;
  @Label("Records") @Description("Records of the failed batch (0: it failed reading or starting)") int records;
  @Label("Error") String error;
  @Label("Action") @Description("RESTART (after the delay, from the stored position) or STOP") String action;
  @Label("Restarts In A Row") int restartsInARow;
  @Label("Delay") @Timespan(Timespan.MILLISECONDS) long delay;

  static void record(String projection, String source, long after, int records, Throwable error, String action,
      int restartsInARow, java.time.Duration delay) {
    ProjectionFailedEvent e = new ProjectionFailedEvent();
    if (e.shouldCommit()) {
      e.projection = projection;
      e.source = source;
      e.after = after;
      e.records = records;
      e.error = error.toString();
      e.action = action;
      e.restartsInARow = restartsInARow;
      e.delay = delay.toMillis();
      e.commit();
    }
  }
}
