package io.commitlane.replication;

import io.commitlane.replication.internal.apply.ReplicaStateMachine;
import io.commitlane.replication.internal.config.RaftServerProperties;
import io.commitlane.replication.internal.entry.CommitBatcher;
import io.commitlane.replication.internal.group.ReplicaIdentity;
import io.commitlane.replication.internal.group.RunningGroup;
import io.commitlane.replication.internal.group.StoredReplicas;
import io.commitlane.replication.internal.status.GroupProbe;
import io.commitlane.replication.internal.group.ReplicaIdentity.Origin;
import io.commitlane.replication.internal.group.StoredReplicas.Stored;
import io.commitlane.replication.internal.transport.StartingReplicas;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;

/**
 * A node that hosts replicas of replicated databases: one Raft server (one address) for every
 * database it holds a replica of, each database its own Raft group with its own log, RocksDB
 * database and snapshots under {@link ReplicaNodeSettings#directory()}.
 *
 * <p>Start one per process on each node, then {@link #host} every replicated database the node
 * is a member of. A node that restarts on the same directory finds its replicas again, checks
 * each against the group it is hosted with, and catches up from the group's leader.
 *
 * <p>What a node refuses, so that two groups of one name never both take commits and no replica
 * serves data that is not its group's: a replica directory another node wrote ({@link #start}),
 * and, when hosting, a directory of another group of the same database ({@link
 * ForeignReplicaDirectoryException}) or a list of members other than the group has agreed on
 * ({@link MembershipMismatchException}).
 */
public final class ReplicaNode implements AutoCloseable {
  private final ReplicaNodeSettings settings;
  private final StoredReplicas stored;
  private final StartingReplicas starting = new StartingReplicas();
  private final RaftServer server;
  /** Where commits' and reads' stages complete: never a Ratis transport thread or the common pool. */
  private final ExecutorService completions;
  /** Asks other nodes which group they run, when hosting; shared by this node's handles for their status. */
  private final GroupProbe probe;
  /** By database name: a node holds at most one replica of a database. */
  private final Map<String, ReplicatedDatabase> hosted = new ConcurrentHashMap<>();
  private final ClientId adminClient = ClientId.randomId();
  private final AtomicLong adminCalls = new AtomicLong();

  private ReplicaNode(ReplicaNodeSettings settings, Runnable beforeReplicaOpens) throws IOException {
    this.settings = settings;
    this.stored = new StoredReplicas(settings.directory().resolve("raft"), settings.self().id());
    stored.checkAll(); // before the server starts every replica directory it finds
    DatabaseOptions options = DatabaseOptions.defaults().withWal(settings.rocksDbWal());
    ExecutorService threads = completionThreads(settings.self().id());
    this.completions = threads;
    this.probe = new GroupProbe(settings.self().id());
    Parameters parameters = new Parameters();
    parameters.put(StartingReplicas.PARAMETER, starting, StartingReplicas.class);
    try {
      this.server = RaftServer.newBuilder()
          .setServerId(RaftPeerId.valueOf(settings.self().id()))
          .setProperties(RaftServerProperties.of(settings))
          .setParameters(parameters)
          .setStateMachineRegistry(groupId -> new ReplicaStateMachine(options, settings.logRetention(), threads, beforeReplicaOpens))
          .setOption(RaftStorage.StartupOption.RECOVER)
          .build();
      server.start();
    } catch (IOException | RuntimeException e) {
      threads.shutdown();
      probe.close();
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

  /**
   * Starts this node's Raft server; replicas found in its directory resume at once, and each is
   * checked against its group when it is hosted.
   *
   * @throws ForeignReplicaDirectoryException if a replica directory under the node's directory
   *     was written by another node, or does not hold the group its name says
   */
  public static ReplicaNode start(ReplicaNodeSettings settings) {
    return start(settings, () -> {});
  }

  /** {@link #start}, running {@code beforeReplicaOpens} as each replica starts to open its database (tests hold a start there). */
  static ReplicaNode start(ReplicaNodeSettings settings, Runnable beforeReplicaOpens) {
    InvalidReplicaRequestException.required(settings, "settings");
    try {
      return new ReplicaNode(settings, beforeReplicaOpens);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start replica node " + settings.self().id() + " at " + settings.self().address(), e);
    }
  }

  /**
   * Hosts this node's replica of {@code group} and returns the handle to commit and read
   * through. Every voter and listener of the group must host it, each given the same members.
   *
   * <p>A node without a replica of the database first asks the group's other members which group
   * they run: it joins that one if its members agree with {@code group}, or forms the group if
   * none runs yet. A node with a replica resumes it. After a membership change, give it the group
   * as it is now.
   *
   * @throws InvalidSettingsException if this node is neither a voter nor a listener of the group
   * @throws MembershipMismatchException if the group's agreed members (its replicas' Raft
   *     configuration) are not {@code group}'s: the replica is not started
   * @throws ForeignReplicaDirectoryException if this node's directory holds a replica of another
   *     group of the database (another deployment, or other members): it is not started
   */
  public ReplicatedDatabase host(ReplicationGroup group) {
    InvalidReplicaRequestException.required(group, "group");
    if (!group.hasMember(settings.self().id())) {
      throw new InvalidSettingsException(List.of(new SettingError("voters", group.voters(),
          "must include this node (" + settings.self().id() + "), or its listeners must, to host a replica of '"
              + group.database() + "'; to add this node to a running group, use join")));
    }
    synchronized (this) {
      ReplicatedDatabase existing = hosted.get(group.database());
      if (existing != null) {
        MembershipMismatchException mismatch = disagreement(group, existing.groupId(), null);
        if (mismatch != null) {
          throw mismatch; // the replica it hosts already goes on
        }
        return existing;
      }
      Stored mine = storedReplica(group.database());
      List<GroupProbe.Answer> answers = probe.groupsOf(group.database(), others(group));
      RunningGroup running = RunningGroup.of(group.database(), answers);
      ReplicatedDatabase db = mine == null ? create(group, running) : resume(group, mine, running, answers);
      hosted.put(group.database(), db);
      return db;
    }
  }

  /**
   * Hosts a new, empty replica of a running group that this node is not a member of yet: it takes
   * no part until a member adds it ({@link ReplicatedDatabase#addReplica}), then catches up from
   * the leader (by a snapshot if the leader purged its early log). {@code group} is the group as
   * it is now, without this node; this node's handle reaches the leader through it. After a
   * restart, host the replica with {@link #host} and the group as it is then.
   *
   * @throws ReplicaUnavailableException if no member of the group answered: there is nothing to join yet
   * @throws MembershipMismatchException if the running group's members are not {@code group}'s
   * @throws ForeignReplicaDirectoryException if this node's directory holds a replica of another
   *     group of the database: a node joins with none, or with the one it joined with before
   */
  public ReplicatedDatabase join(ReplicationGroup group) {
    InvalidReplicaRequestException.required(group, "group");
    synchronized (this) {
      ReplicatedDatabase existing = hosted.get(group.database());
      if (existing != null) {
        return existing;
      }
      Stored mine = storedReplica(group.database());
      List<RaftPeer> members = others(group);
      if (mine != null) { // restarted before it was added: it waits for the leader again
        RunningGroup running = RunningGroup.of(group.database(), probe.groupsOf(group.database(), members));
        if (running != null && !running.id().equals(mine.id())) {
          throw new ForeignReplicaDirectoryException(mine.directory(), "holds " + describe(group, mine) + ", but the group's replicas "
              + running.hostedBy() + " run group " + running.id().getUuid() + " with " + running.members().members()
              + ": a node joins with no replica of the database in its directory; move this one away, then join");
        }
        RaftServer.Division d = running(mine.id()) ? division(mine.id()) : start(mine.id(), RaftGroup.valueOf(mine.id()), false);
        adoptIfUnstamped(group, mine);
        return keep(group, mine.id(), d);
      }
      RunningGroup running = RunningGroup.of(group.database(), probe.groupsOf(group.database(), members));
      if (running == null) {
        throw new ReplicaUnavailableException("replicated database '" + group.database() + "': no member of " + group.members()
            + " answered with a running group to join; start the group's replicas first, then join");
      }
      if (!running.members().sameMembers(group)) {
        throw new MembershipMismatchException(group, running.members(), running.where(), "node " + settings.self().id() + " (joining)");
      }
      // An empty configuration: the replica waits for the leader's instead of starting elections of its own.
      RaftServer.Division d = start(running.id(), RaftGroup.valueOf(running.id()), true);
      stored.write(new ReplicaIdentity(group.database(), running.id(), settings.self().id(), null, Instant.now(), Origin.JOINED));
      return keep(group, running.id(), d);
    }
  }

  /** A new replica: of the group its members run, if one runs and agrees with {@code group}; else of a new group. */
  private ReplicatedDatabase create(ReplicationGroup group, RunningGroup running) {
    RaftGroupId id = group.groupId();
    boolean unchanged = true;
    if (running != null) {
      if (!running.members().sameMembers(group)) {
        throw new MembershipMismatchException(group, running.members(), running.where(), "node " + settings.self().id());
      }
      id = running.id();
      unchanged = id.equals(group.groupId());
    }
    // A group whose members changed since it formed: this empty replica learns them from the
    // leader, which counts it as a member already.
    RaftServer.Division d = start(id, unchanged ? group.raftGroup(id) : RaftGroup.valueOf(id), true);
    stored.write(new ReplicaIdentity(group.database(), id, settings.self().id(), unchanged ? group : null, Instant.now(),
        unchanged ? Origin.CREATED : Origin.JOINED));
    return keep(group, id, d);
  }

  /** This node's replica from its directory, once it is known to belong to the group its members run, with the members it was given. */
  private ReplicatedDatabase resume(ReplicationGroup group, Stored mine, RunningGroup running, List<GroupProbe.Answer> answers) {
    RaftGroupId id = mine.id();
    boolean othersHostIt = answers.stream().flatMap(a -> a.groups().stream()).anyMatch(g -> g.getRaftGroupId().equals(id));
    if (running != null && !running.id().equals(id) && running.members().sameMembers(group) && !othersHostIt) {
      stop(id);
      throw new ForeignReplicaDirectoryException(mine.directory(), "holds " + describe(group, mine) + ", but the group's replicas "
          + running.hostedBy() + " run group " + running.id().getUuid() + " with " + running.members().members()
          + ": the directory belongs to another group of the same database (another deployment, or other members)");
    }
    RaftGroup initial = initialMembers(group, mine);
    RaftServer.Division d = running(id) ? division(id) : start(id, initial, false);
    if (d.getRaftConf().getCurrentPeers().isEmpty() && !initial.getPeers().isEmpty()) {
      // Started from the directory before any configuration was logged (Ratis starts it without
      // members): start it again with the members it was created with.
      stop(id);
      d = start(id, initial, false);
    }
    MembershipMismatchException mismatch = disagreement(group, id, running);
    if (mismatch != null) {
      stop(id); // a node told other members than its group's takes no part
      throw mismatch;
    }
    adoptIfUnstamped(group, mine);
    return keep(group, id, d);
  }

  /**
   * Why {@code group}'s members are not those the group agreed on (the leader's configuration
   * when this replica or a replica that answered leads, else this replica's own), or null when
   * they are.
   */
  private MembershipMismatchException disagreement(ReplicationGroup group, RaftGroupId id, RunningGroup running) {
    RaftServer.Division d = division(id);
    RaftConfiguration conf = d.getRaftConf();
    ReplicationGroup agreed = ReplicationGroup.of(group.database(), conf.getCurrentPeers(), conf.getCurrentPeers(RaftPeerRole.LISTENER));
    String where = d.getInfo().isLeader() ? "as this replica, the leader, has them" : "as this replica's configuration has them";
    if (!d.getInfo().isLeader() && running != null && running.id().equals(id) && running.fromLeader()) {
      agreed = running.members();
      where = running.where();
    }
    return agreed == null || agreed.sameMembers(group) ? null
        : new MembershipMismatchException(group, agreed, where, "node " + settings.self().id());
  }

  /** The members a stored replica starts with when its directory holds none yet: those it was created with. */
  private RaftGroup initialMembers(ReplicationGroup group, Stored mine) {
    RaftGroupId id = mine.id();
    if (mine.identity() != null) {
      return mine.identity().members() == null ? RaftGroup.valueOf(id) : mine.identity().members().raftGroup(id);
    }
    boolean formedWithThese = id.equals(group.groupId()) || id.equals(ReplicationGroup.legacyGroupId(group.database()));
    return formedWithThese ? group.raftGroup(id) : RaftGroup.valueOf(id);
  }

  /** A directory written without an identity (by an earlier version) that proved to be this node's replica: it gets one. */
  private void adoptIfUnstamped(ReplicationGroup group, Stored mine) {
    if (mine.identity() == null) {
      stored.write(new ReplicaIdentity(group.database(), mine.id(), settings.self().id(), null, Instant.now(), Origin.ADOPTED));
    }
  }

  private static String describe(ReplicationGroup group, Stored mine) {
    return mine.identity() != null ? mine.identity().toString()
        : "a replica of '" + group.database() + "' written by an earlier version (group " + mine.id().getUuid() + ")";
  }

  /** This node's one replica of {@code database} in its directory, or null. */
  private Stored storedReplica(String database) {
    List<Stored> mine = stored.of(database);
    if (mine.size() > 1) {
      throw new ForeignReplicaDirectoryException(mine.get(1).directory(), "is a second replica of '" + database
          + "' on this node, beside " + mine.get(0).directory() + "; a node holds one replica of a database");
    }
    return mine.isEmpty() ? null : mine.get(0);
  }

  /** The group's members other than this node: whom to ask which group runs. */
  private List<RaftPeer> others(ReplicationGroup group) {
    RaftPeerId self = RaftPeerId.valueOf(settings.self().id());
    return group.raftGroup(group.groupId()).getPeers().stream().filter(p -> !p.getId().equals(self)).toList();
  }

  private ReplicatedDatabase keep(ReplicationGroup group, RaftGroupId id, RaftServer.Division d) {
    return new ReplicatedDatabase(group, id, d, attemptTimeout(settings.electionTimeoutMax()), settings.requestTimeout(),
        completions, null, probe);
  }

  /**
   * Starts group {@code id}'s replica in the server: a new directory ({@code create}), or the one
   * this node has. The server turns the leader's requests away quietly while it starts.
   */
  private RaftServer.Division start(RaftGroupId id, RaftGroup initial, boolean create) {
    starting.starting(id);
    try {
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(
          adminClient, server.getId(), adminCalls.incrementAndGet(), initial, create));
      if (!reply.isSuccess()) {
        throw new ReplicaUnavailableException("cannot start the replica of group " + id.getUuid() + ": " + reply.getException(),
            reply.getException());
      }
      return server.getDivision(id);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the replica of group " + id.getUuid(), e);
    } finally {
      starting.started(id);
    }
  }

  /** Stops group {@code id}'s replica, keeping its directory; nothing if it is not running. */
  private void stop(RaftGroupId id) {
    if (!running(id)) {
      return;
    }
    starting.stopping(id); // the leader's entries are turned away quietly while it closes
    try {
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newRemove(
          adminClient, server.getId(), adminCalls.incrementAndGet(), id, false, false));
      if (!reply.isSuccess()) {
        throw new ReplicaUnavailableException("cannot stop the replica of group " + id.getUuid() + ": " + reply.getException(),
            reply.getException());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop the replica of group " + id.getUuid(), e);
    } finally {
      starting.stopped(id);
    }
  }

  private boolean running(RaftGroupId id) {
    for (RaftGroupId g : server.getGroupIds()) {
      if (g.equals(id)) {
        return true;
      }
    }
    return false;
  }

  private RaftServer.Division division(RaftGroupId id) {
    try {
      return server.getDivision(id);
    } catch (IOException e) {
      throw new UncheckedIOException("the replica of group " + id.getUuid() + " is not running", e);
    }
  }

  public ReplicaPeer self() {
    return settings.self();
  }

  /** Stops the Raft server and closes every replica's database; handles fail afterwards. */
  @Override
  public void close() {
    starting.closing(); // the leaders' entries are turned away quietly while the replicas close
    for (ReplicatedDatabase db : hosted.values()) {
      db.close();
    }
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing replica node " + settings.self().id() + " failed", e);
    } finally {
      probe.close();
      completions.shutdown();
    }
  }
}
