package io.commitlane.actors;

import java.util.Locale;

/**
 * How a database's commits are executed: on the commit executors ({@link #THREADS}, the default) or
 * in two lanes ({@link #TWO_LANE}). Commits never run on the completion dispatcher.
 */
public enum PipelineMode {
  /** On the database's commit executors, each on a dedicated thread (default). */
  THREADS,
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
