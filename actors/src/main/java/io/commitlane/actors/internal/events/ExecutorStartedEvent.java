package io.commitlane.actors.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** Flight Recorder: a commit executor set up on its own thread (again after a restart). */
@Name("io.commitlane.ExecutorStarted")
@Label("Commit Executor Started")
@Category({"commitlane", "Executor"})
@Description("A commit executor set up on its own thread (again after a restart)")
public final class ExecutorStartedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  static final ExecutorStartedEvent TYPE = new ExecutorStartedEvent();

  public @Label("Database") String database;
  public @Label("Executor") @Description("The executor thread's name") String executor;
}
