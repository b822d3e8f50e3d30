package io.commitlane.actors;

import java.util.Locale;

/** How a database's commits are executed; one setting, same build, for A/B comparisons. */
public enum PipelineMode {
  /** On the database's commit executors, each on a dedicated thread (default). */
  THREADS,
  /**
   * On the completion dispatcher (Pekko's default dispatcher unless configured): blocking commits
   * compete with every other task there. The starvation baseline; for measurements only.
   */
  LEGACY;

  public String settingName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
