package io.commitlane.actors;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** Flight Recorder: a commit executor stopped (the database closed, or it failed and is replaced). */
@Name("io.commitlane.ExecutorStopped")
@Label("Commit Executor Stopped")
@Category({"commitlane", "Executor"})
@Description("A commit executor stopped (the database closed, or it failed and is replaced)")
final class ExecutorStoppedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  static final ExecutorStoppedEvent TYPE = new ExecutorStoppedEvent();

  @Label("Database") String database;
  @Label("Executor") @Description("The executor thread's name") String executor;
}
