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
  LEGACY,
  /**
   * In two lanes: one log-lane thread validates each commit and appends its log record (under its
   * locks, in admission order), then hands it to the commit executors, which write it to RocksDB;
   * so one commit's log append overlaps other commits' writes. Merged write groups are not formed.
   * For evaluation against {@link #THREADS} on real workloads: it costs a thread hand-off per commit.
   */
  TWO_LANE;

  public String settingName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
