package io.commitlane.actors;

/**
 * {@code commitlane.write-groups}: how an executor that wakes with several queued commits merges
 * them into one RocksDB write. A group takes only what is already queued (a lone commit never
 * waits for company) and closes before it would pass any bound; a commit larger than a bound
 * still runs, alone.
 *
 * <p>Ranges: {@code PipelineKeys}; defaults: {@code reference.conf}, checked when {@link
 * PipelineSettings} is built.
 */
public record WriteGroupSettings(boolean enabled, int maxMembers, int maxKeys, long maxBytes) {
  /** The defaults of {@code reference.conf}. */
  public static WriteGroupSettings defaults() {
    return PipelineSettings.defaults().writeGroups();
  }

  /** The default bounds, merging off. */
  public static WriteGroupSettings off() {
    WriteGroupSettings d = defaults();
    return new WriteGroupSettings(false, d.maxMembers(), d.maxKeys(), d.maxBytes());
  }
}
