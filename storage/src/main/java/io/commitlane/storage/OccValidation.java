package io.commitlane.storage;

import java.util.Locale;

/** How commits to one database are validated against each other. */
public enum OccValidation {
  /**
   * Each commit locks only its own lock buckets (in sorted order) from validation through its
   * write, so commits on disjoint keys validate and write concurrently and RocksDB can group
   * their writes.
   */
  PARALLEL,
  /**
   * One per-database commit lock around validation and write. Fewer moving parts, but concurrent
   * writers to one database never overlap: slower under concurrent synchronous commits.
   */
  SERIAL;

  /** The lower-case name used in settings files: {@code parallel} or {@code serial}. */
  public String settingName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
