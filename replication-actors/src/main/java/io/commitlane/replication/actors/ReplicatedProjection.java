package io.commitlane.replication.actors;

import io.commitlane.replication.actors.internal.projection.ReplicatedProjectionStore;
import io.commitlane.actors.projection.Projection;
import io.commitlane.actors.projection.ProjectionHandler;
import io.commitlane.actors.projection.ProjectionSettings;
import io.commitlane.replication.ReplicaLogRecord;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicatedTransaction;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Projections of a replicated database's transaction log into the same replicated database. A
 * runner on any node that hosts a replica reads that replica's change feed and commits each batch
 * through Raft, in one {@link ReplicatedTransaction} with the projection's position: every replica
 * validates the commit at its place in the group's log, so the batch's writes and its position
 * apply together on every replica, or nowhere. The stored position is a commit index, the same on
 * every replica, so the projection can stop on one node and start on another and go on right after
 * its last batch; two runners on two nodes never both apply a batch.
 *
 * <pre>{@code
 * Projection<ReplicaLogRecord, ReplicatedTransaction> counts = ReplicatedProjection.of(replica, "order-counts", "orders",
 *     (txn, records) -> { ... txn.get("model", key) / txn.put("model", key, value) ... });
 * ProjectionControl running = counts.run(system);
 * }</pre>
 *
 * <p>After a batch commits, the runner waits until this node's replica has applied it before it
 * starts the next (on a follower of a quiet group that is up to one heartbeat, half of {@code
 * election-timeout-min}). No leader within {@code request-timeout} is a failure that may pass: the
 * runner restarts after its restart backoff and reads the stored position again, so a commit whose
 * outcome was unknown is never applied twice. Records trimmed by {@code log-retention} before the
 * projection read them stop it with {@link io.commitlane.replication.ChangesTrimmedException}: it
 * never skips records.
 */
public final class ReplicatedProjection {
  private static final Pattern LOG_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private ReplicatedProjection() {}

  /**
   * A projection named {@code name} of log {@code log} of {@code db}, with {@link ProjectionSettings#defaults()}.
   *
   * @param db a handle that holds a replica on this node ({@code ReplicaNode.host} or {@code join})
   * @throws IllegalArgumentException for a client handle (it has no change feed), or an invalid projection or log name
   */
  public static Projection<ReplicaLogRecord, ReplicatedTransaction> of(ReplicatedDatabase db, String name, String log,
      ProjectionHandler<ReplicaLogRecord, ReplicatedTransaction> handler) {
    Objects.requireNonNull(db, "db");
    if (!db.holdsReplica()) {
      throw new IllegalArgumentException("replicated database '" + db.name() + "': a projection runs on a node that hosts a"
          + " replica (ReplicaNode.host or join), where it reads the change feed; a client handle has none");
    }
    if (log == null || !LOG_NAME.matcher(log).matches()) {
      throw new IllegalArgumentException("log name " + (log == null ? "null" : '"' + log + '"')
          + " is invalid: use 1..128 of A-Z a-z 0-9 . _ - starting with a letter or digit");
    }
    return Projection.of(new ReplicatedProjectionStore(db, log), name, handler, ProjectionSettings.defaults());
  }
}
