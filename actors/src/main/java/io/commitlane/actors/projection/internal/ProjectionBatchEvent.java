package io.commitlane.actors.projection.internal;

import io.commitlane.actors.projection.Projection;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** Flight Recorder: a projection's batch, from its handler's start to its commit's outcome. */
@Name("io.commitlane.ProjectionBatch")
@Label("Projection Batch")
@Category({"commitlane", "Projection"})
@Description("A projection's batch, from its handler's start to its commit's outcome")
@StackTrace(false)
@Enabled(false) // one per batch, like the per-commit events: off unless a recording enables it (CommitlaneEvents.enableAll)
final class ProjectionBatchEvent extends jdk.jfr.Event {
  @Label("Projection") String projection;
  @Label("Source") @Description("The log and database it reads") String source;
  @Label("Records") int records;
  @Label("After") @Description("The stored position the batch came after (-1: none)") long after;
  @Label("Position") @Description("The position of the batch's last record") long position;
  @Label("Outcome") @Description("COMMITTED, CONFLICTED (another runner committed first; read again) or FAILED") String outcome;
  @Label("Lag") @Description("How long the batch's first record had been in the log when the batch's outcome came")
  @Timespan(Timespan.MILLISECONDS) long lag;

  /** Ends the event begun when the batch's handler started, and commits it if recorded. */
  void end(String projection, String source, int records, long after, long position, String outcome, long firstTimestamp) {
    end();
    if (shouldCommit()) {
      this.projection = projection;
      this.source = source;
      this.records = records;
      this.after = after;
      this.position = position;
      this.outcome = outcome;
      this.lag = Math.max(0, System.currentTimeMillis() - firstTimestamp);
      commit();
    }
  }
}
