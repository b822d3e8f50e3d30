package io.commitlane.actors;

/**
 * {@code commitlane.write-groups}: how an executor that wakes with several queued commits merges
 * them into one RocksDB write. A group takes only what is already queued (a lone commit never
 * waits for company) and closes before it would pass any bound; a commit larger than a bound
 * still runs, alone.
 *
 * @param enabled merge queued commits; off = one write per commit
 * @param maxMembers commits per group, 2..4096
 * @param maxKeys buffered writes per group, 1..1048576
 * @param maxBytes key and value bytes per group, 1 KiB..1 GiB
 */
public record WriteGroupSettings(boolean enabled, int maxMembers, int maxKeys, long maxBytes) {
  public static final int MIN_MEMBERS = 2;
  public static final int MAX_MEMBERS = 4096;
  public static final int MAX_KEYS = 1 << 20;
  public static final long MIN_BYTES = 1024;
  public static final long MAX_BYTES = 1L << 30;

  public static WriteGroupSettings defaults() {
    return new WriteGroupSettings(true, 64, 4096, 4L << 20);
  }

  /** The default bounds, merging off. */
  public static WriteGroupSettings off() {
    WriteGroupSettings d = defaults();
    return new WriteGroupSettings(false, d.maxMembers(), d.maxKeys(), d.maxBytes());
  }
}
