package io.commitlane.replication.actors;

import io.commitlane.replication.ReadConsistency;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link ReplicatedDatabaseActor} serves requests.
 *
 * @param reads {@code LINEARIZABLE} (the default): {@code Get}, {@code MultiGet}, {@code Scan},
 *     {@code Count} and a {@code ConditionalWrite}'s expectations see every commit acknowledged
 *     before the request arrived (one round trip to the leader, then the local replica); {@code
 *     LOCAL}: they read the local replica as it is, which on a follower may be a few milliseconds
 *     behind (stale reads allowed, no round trip)
 * @param conflictRetries how often a {@code ConditionalWrite} whose expectations still hold is
 *     tried again after a validation conflict, 0..100 (default 3), as a sharded database does
 * @param maxPageBytes a {@code Scan} page ends before its keys and values pass this many bytes
 *     (it holds at least one entry), 1 KiB..64 MiB (default 4 MiB); keep it under the remote frame
 *     size when pages cross nodes
 */
public record ReplicatedActorSettings(ReadConsistency reads, int conflictRetries, int maxPageBytes) {
  public ReplicatedActorSettings {
    Objects.requireNonNull(reads, "reads");
    List<SettingError> errors = new ArrayList<>();
    if (conflictRetries < 0 || conflictRetries > 100) {
      errors.add(new SettingError("conflictRetries", conflictRetries, "0..100"));
    }
    if (maxPageBytes < 1024 || maxPageBytes > 64 * 1024 * 1024) {
      errors.add(new SettingError("maxPageBytes", maxPageBytes, "1 KiB..64 MiB (1024..67108864)"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  /** Linearizable reads, 3 conflict retries, pages of at most 4 MiB. */
  public static ReplicatedActorSettings defaults() {
    return new ReplicatedActorSettings(ReadConsistency.LINEARIZABLE, 3, 4 * 1024 * 1024);
  }

  public ReplicatedActorSettings withReads(ReadConsistency consistency) {
    return new ReplicatedActorSettings(consistency, conflictRetries, maxPageBytes);
  }

  public ReplicatedActorSettings withConflictRetries(int retries) {
    return new ReplicatedActorSettings(reads, retries, maxPageBytes);
  }

  public ReplicatedActorSettings withMaxPageBytes(int bytes) {
    return new ReplicatedActorSettings(reads, conflictRetries, bytes);
  }
}
