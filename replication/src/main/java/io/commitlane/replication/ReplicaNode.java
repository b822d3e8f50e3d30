package io.commitlane.replication;

import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import io.commitlane.replication.internal.SnapshotCatchUpRpcType;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * A node that hosts replicas of replicated databases: one Raft server (one address) for every
 * database it holds a replica of, each database its own Raft group with its own log, RocksDB
 * database and snapshots under {@link ReplicaNodeSettings#directory()}.
 *
 * <p>Start one per process on each node, then {@link #host} every replicated database the node
 * is a voter of. A node that restarts on the same directory finds its replicas again and catches
 * up from the group's leader.
 */
public final class ReplicaNode implements AutoCloseable {
  private final ReplicaNodeSettings settings;
  private final RaftServer server;
  /** Where commits' and reads' stages complete: never a Ratis transport thread or the common pool. */
  private final ExecutorService completions;
  private final Map<RaftGroupId, ReplicatedDatabase> hosted = new ConcurrentHashMap<>();
  private final ClientId adminClient = ClientId.randomId();
  private final AtomicLong adminCalls = new AtomicLong();

  private ReplicaNode(ReplicaNodeSettings settings) throws IOException {
    this.settings = settings;
    DatabaseOptions options = DatabaseOptions.defaults().withWal(settings.rocksDbWal());
    ExecutorService threads = completionThreads(settings.self().id());
    this.completions = threads;
    try {
      this.server = RaftServer.newBuilder()
          .setServerId(RaftPeerId.valueOf(settings.self().id()))
          .setProperties(properties(settings))
          .setStateMachineRegistry(groupId -> new ReplicaStateMachine(options, settings.logRetention(), threads))
          .setOption(RaftStorage.StartupOption.RECOVER)
          .build();
      server.start();
    } catch (IOException | RuntimeException e) {
      threads.shutdown();
      throw e;
    }
  }

  /** Two daemon threads where commits' and reads' stages complete. */
  static ExecutorService completionThreads(String owner) {
    AtomicInteger threads = new AtomicInteger();
    return Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "commitlane-replica-" + owner + "-completion-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** How long one attempt waits for a replica's reply before the client tries the next one. */
  static Duration attemptTimeout(Duration electionTimeoutMax) {
    return electionTimeoutMax.compareTo(Duration.ofSeconds(1)) > 0 ? electionTimeoutMax : Duration.ofSeconds(1);
  }

  /** Starts this node's Raft server; replicas found in its directory resume at once. */
  public static ReplicaNode start(ReplicaNodeSettings settings) {
    try {
      return new ReplicaNode(settings);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start replica node " + settings.self().id() + " at " + settings.self().address(), e);
    }
  }

  private static RaftProperties properties(ReplicaNodeSettings s) {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, new SnapshotCatchUpRpcType());
    RaftServerConfigKeys.setStorageDir(p, List.of(s.directory().resolve("raft").toFile()));
    GrpcConfigKeys.Server.setHost(p, s.self().host());
    GrpcConfigKeys.Server.setPort(p, s.self().port());
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(s.electionTimeoutMin().toMillis(), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(s.electionTimeoutMax().toMillis(), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, s.snapshotEveryEntries());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(s.logSegmentBytes()));
    // No commit-index entry after each commit: it doubled the entries and the log syncs per commit
    // at one commit in flight. Without it a restarted replica learns the commit index from the
    // leader before it applies what it holds.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
    // Keep some entries below each snapshot: a follower just behind the purge point catches up
    // from the log rather than from a whole snapshot.
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.max(1, Math.min(1024, s.snapshotEveryEntries() / 10)));
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, Math.max(200, s.snapshotEveryEntries() / 4));
    // A read through the leader waits for its read index: it sees every commit acknowledged before it.
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    // While the majority acknowledged its heartbeats within the last 0.9 election timeouts, no
    // other leader can exist: the leader answers reads at once instead of confirming its
    // leadership with a heartbeat round per read. Monotonic clocks only, no clock sync needed.
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);
    return p;
  }

  /**
   * Hosts this node's replica of {@code group}, creating it on first use, and returns the handle
   * to commit and read through. Every voter and listener of the group must host it.
   *
   * @throws InvalidSettingsException if this node is neither a voter nor a listener of the group
   */
  public ReplicatedDatabase host(ReplicationGroup group) {
    if (!group.hasMember(settings.self().id())) {
      throw new InvalidSettingsException(List.of(new SettingError("voters", group.voters(),
          "must include this node (" + settings.self().id() + "), or its listeners must, to host a replica of '"
              + group.database() + "'; to add this node to a running group, use join")));
    }
    return hosted(group, group.raftGroup());
  }

  /**
   * Hosts a new, empty replica of a running group that this node is not a member of yet: it takes
   * no part until a member adds it ({@link ReplicatedDatabase#addReplica}), then catches up from
   * the leader (by a snapshot if the leader purged its early log). {@code group} names the
   * current voters, through which this node's handle reaches the leader; after a restart, host
   * the replica with {@link #host} and the group as it is now.
   */
  public ReplicatedDatabase join(ReplicationGroup group) {
    // An empty initial configuration: the replica waits for the leader's configuration entry
    // instead of starting elections of its own.
    return hosted(group, RaftGroup.valueOf(group.groupId()));
  }

  private ReplicatedDatabase hosted(ReplicationGroup group, RaftGroup initial) {
    return hosted.computeIfAbsent(group.groupId(), id -> {
      try {
        if (!contains(id)) {
          RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(
              adminClient, server.getId(), adminCalls.incrementAndGet(), initial));
          if (!reply.isSuccess()) {
            throw new ReplicaUnavailableException("cannot create the replica of '" + group.database() + "': " + reply.getException());
          }
        }
        return new ReplicatedDatabase(group, server.getDivision(id), attemptTimeout(settings.electionTimeoutMax()),
            settings.requestTimeout(), completions, null);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot host the replica of '" + group.database() + "'", e);
      }
    });
  }

  private boolean contains(RaftGroupId id) {
    for (RaftGroupId g : server.getGroupIds()) {
      if (g.equals(id)) {
        return true;
      }
    }
    return false;
  }

  public ReplicaPeer self() {
    return settings.self();
  }

  /** Stops the Raft server and closes every replica's database; handles fail afterwards. */
  @Override
  public void close() {
    for (ReplicatedDatabase db : hosted.values()) {
      db.close();
    }
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing replica node " + settings.self().id() + " failed", e);
    } finally {
      completions.shutdown();
    }
  }
}
