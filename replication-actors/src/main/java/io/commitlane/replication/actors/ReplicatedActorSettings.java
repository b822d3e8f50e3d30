package io.commitlane.replication.actors;

import io.commitlane.replication.ReadConsistency;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link ReplicatedDatabaseActor} serves requests.
 *
 * @param reads {@code LINEARIZABLE} (the default): {@code Get}, {@code MultiGet}, {@code Scan} and
 *     {@code Count} see every commit acknowledged before the request arrived (one round trip to
 *     the leader, then the local replica; without a replica, through the leader); {@code LOCAL}:
 *     they read the local replica as it is, which on a follower may be a few milliseconds behind
 *     (stale reads allowed, no round trip), and are refused on a node without a replica. A {@code
 *     ConditionalWrite}'s expectations are checked at the commit's place in the log either way.
 * @param maxPageBytes a {@code Scan} page ends before its keys and values pass this many bytes
 *     (it holds at least one entry), 1 KiB..64 MiB (default 4 MiB); keep it under the remote frame
 *     size when pages cross nodes
 */
public record ReplicatedActorSettings(ReadConsistency reads, int maxPageBytes) {
  public ReplicatedActorSettings {
    Objects.requireNonNull(reads, "reads");
    if (maxPageBytes < 1024 || maxPageBytes > 64 * 1024 * 1024) {
      throw new InvalidSettingsException(List.of(new SettingError("maxPageBytes", maxPageBytes, "1 KiB..64 MiB (1024..67108864)")));
    }
  }

  /** Linearizable reads, pages of at most 4 MiB. */
  public static ReplicatedActorSettings defaults() {
    return new ReplicatedActorSettings(ReadConsistency.LINEARIZABLE, 4 * 1024 * 1024);
  }

  public ReplicatedActorSettings withReads(ReadConsistency consistency) {
    return new ReplicatedActorSettings(consistency, maxPageBytes);
  }

  public ReplicatedActorSettings withMaxPageBytes(int bytes) {
    return new ReplicatedActorSettings(reads, bytes);
  }
}
