package io.commitlane.actors.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** Flight Recorder: a commit executor stopped (the database closed, or it failed and is replaced). */
@Name("io.commitlane.ExecutorStopped")
@Label("Commit Executor Stopped")
@Category({"commitlane", "Executor"})
@Description("A commit executor stopped (the database closed, or it failed and is replaced)")
public final class ExecutorStoppedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  static final ExecutorStoppedEvent TYPE = new ExecutorStoppedEvent();

  public @Label("Database") String database;
  public @Label("Executor") @Description("The executor thread's name") String executor;
}
