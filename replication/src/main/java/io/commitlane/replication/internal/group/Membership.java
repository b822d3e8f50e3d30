package io.commitlane.replication.internal.group;

import io.commitlane.replication.MembershipMismatchException;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicaReport;
import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.ReplicationGroup;
import io.commitlane.replication.internal.status.GroupProbe;
import java.io.IOException;
import java.time.Duration;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.server.RaftServer;

import java.util.function.Supplier;

/**
 * Changes to a group's membership, through a node that holds a replica or a client that holds
 * none: voters added (as listeners first, promoted once caught up), listeners added, replicas
 * removed. Each change is a Raft configuration change, sent to the leader and committed by the
 * group before it returns. A replica changes the configuration it has; a client the one the
 * group's leader answers with, once it agrees with the members the client was given.
 */
public final class Membership {
  /** How long a node to be added is asked whether it hosts the group before it counts as not started. */
  private static final Duration JOINED_ANSWER = Duration.ofSeconds(5);

  private final ReplicationGroup group;
  private final String database;
  private final RaftGroupId groupId;
  /** This node's replica; null on a client handle, which asks the group's replicas for its configuration. */
  private final RaftServer.Division division;
  private final Supplier<RaftClient> client;
  private final GroupProbe probe;

  public Membership(ReplicationGroup group, RaftGroupId groupId, RaftServer.Division division, Supplier<RaftClient> client, GroupProbe probe) {
    this.group = group;
    this.database = group.database();
    this.groupId = groupId;
    this.division = division;
    this.client = client;
    this.probe = probe;
  }

  /**
   * Adds {@code peer}, which must already host an empty replica ({@link ReplicaNode#join}) or be
   * one of the group's listeners, to the voters: first as a listener that catches up, then as a
   * voter once it holds
   * what the leader had committed when it started. Blocks until the new configuration is
   * committed. Called on a node that holds a replica.
   *
   * @throws ReplicaUnavailableException if the group refused the change or it did not complete in {@code timeout}
   */
  public void addReplica(ReplicaPeer peer, Duration timeout) throws InterruptedException {
    RaftPeer joining = RaftPeer.newBuilder().setId(peer.id()).setAddress(peer.address()).build();
    Conf conf = conf();
    List<RaftPeer> voters = conf.voters();
    if (voters.stream().anyMatch(p -> p.getId().equals(joining.getId()))) {
      return;
    }
    List<RaftPeer> listeners = conf.listeners();
    boolean promoting = listeners.removeIf(p -> p.getId().equals(joining.getId())); // a listener being promoted
    if (division == null && !promoting) {
      requireJoined(joining);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    List<RaftPeer> withJoining = new ArrayList<>(listeners);
    withJoining.add(RaftPeer.newBuilder(joining).setStartupRole(RaftPeerRole.LISTENER).build());
    setConfiguration(voters, withJoining, "add listener " + peer.id());
    long target = committedNow(voters);
    while (appliedBy(joining) < target) {
      if (System.nanoTime() > deadline) {
        throw new ReplicaUnavailableException("replica " + peer.id() + " did not catch up to index " + target + " in "
            + timeout.toMillis() + " ms; it stays a listener");
      }
      Thread.sleep(50); // catching up runs on the leader's appender
    }
    voters.add(joining);
    setConfiguration(voters, listeners, "promote " + peer.id() + " to voter");
  }

  /**
   * Adds {@code peer}, which must already host an empty replica ({@link ReplicaNode#join}), as a
   * non-voting listener: it receives and applies every commit (local reads, change feeds) without
   * counting toward the majority. Returns once the configuration is committed; the listener
   * catches up in the background. Works on a replica's handle and on a client's.
   */
  public void addListener(ReplicaPeer peer) {
    RaftPeer joining = RaftPeer.newBuilder().setId(peer.id()).setAddress(peer.address()).setStartupRole(RaftPeerRole.LISTENER).build();
    Conf conf = conf();
    List<RaftPeer> voters = conf.voters();
    List<RaftPeer> listeners = conf.listeners();
    if (voters.stream().anyMatch(p -> p.getId().equals(joining.getId()))) {
      throw new InvalidSettingsException(List.of(new SettingError("listeners", peer.id(), "not a voter already")));
    }
    if (listeners.stream().noneMatch(p -> p.getId().equals(joining.getId()))) {
      if (division == null) {
        try {
          requireJoined(joining);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ReplicaUnavailableException("replicated database '" + database + "': interrupted while asking node "
              + peer.id() + " whether it joined; nothing was changed", e);
        }
      }
      listeners.add(joining);
      setConfiguration(voters, listeners, "add listener " + peer.id());
    }
  }

  /**
   * Removes the replica on node {@code id}, a voter or a listener, from the group; its node can
   * then be retired (its files are no longer needed). Removing the leader makes another replica
   * lead. Keep an odd number of voters: the group needs a majority of them to commit.
   */
  public void removeReplica(String id) {
    Conf conf = conf();
    List<RaftPeer> voters = conf.voters();
    List<RaftPeer> listeners = conf.listeners();
    boolean voter = voters.removeIf(p -> p.getId().toString().equals(id));
    boolean listener = listeners.removeIf(p -> p.getId().toString().equals(id));
    if (!voter && !listener) {
      return;
    }
    if (voters.isEmpty()) {
      throw new InvalidSettingsException(List.of(new SettingError("voters", id, "a group keeps at least one voter")));
    }
    setConfiguration(voters, listeners, "remove " + id);
  }

  /** A group's voters and listeners, as Ratis peers. */
  private record Conf(List<RaftPeer> voters, List<RaftPeer> listeners) {}

  /**
   * The configuration to change: this replica's, or on a client handle the one the group's
   * replicas answer with (the leader's when it answers), which must be the members the client was
   * given.
   *
   * @throws ReplicaUnavailableException if no replica answered with the group's configuration
   * @throws MembershipMismatchException if the group's members are not those the client was given
   */
  private Conf conf() {
    if (division != null) {
      return new Conf(new ArrayList<>(division.getRaftConf().getCurrentPeers()),
          new ArrayList<>(division.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER)));
    }
    RunningGroup running = RunningGroup.of(database, probe.groupsOf(database, List.copyOf(group.raftGroup(groupId).getPeers())));
    if (running == null || !running.id().equals(groupId)) {
      throw new ReplicaUnavailableException("replicated database '" + database + "': no member of " + group.members()
          + " answered with the group's configuration; start the group's replicas, then change its membership");
    }
    if (!running.members().sameMembers(group)) {
      throw new MembershipMismatchException(group, running.members(), running.where(), "the membership change");
    }
    List<RaftPeer> voters = new ArrayList<>();
    List<RaftPeer> listeners = new ArrayList<>();
    running.members().voters().forEach(p -> voters.add(ReplicationGroup.raftPeer(p, RaftPeerRole.FOLLOWER)));
    running.members().listeners().forEach(p -> listeners.add(ReplicationGroup.raftPeer(p, RaftPeerRole.LISTENER)));
    return new Conf(voters, listeners);
  }

  /**
   * Refuses to add a node that hosts no replica of this group (not started with {@link
   * ReplicaNode#join}, or unreachable) before the configuration changes: the group would wait for
   * a listener that never catches up.
   */
  private void requireJoined(RaftPeer joining) throws InterruptedException {
    // A node that refused a connection moments ago is asked again for a while: the connection to
    // it backs off after a refusal, and a node started just now may still be opening its port.
    long deadline = System.nanoTime() + JOINED_ANSWER.toNanos();
    GroupProbe.Answer answer = null;
    while (true) {
      List<GroupProbe.Answer> answers = probe.groupsOf(database, List.of(joining));
      answer = answers.isEmpty() ? null : answers.get(0);
      if ((answer != null && answer.reachable()) || System.nanoTime() > deadline) {
        break;
      }
      Thread.sleep(200); // the connection's reconnect backoff, not a race with the node
    }
    if (answer == null || !answer.reachable()) {
      throw new ReplicaUnavailableException("replicated database '" + database + "': node " + joining.getId() + " at "
          + joining.getAddress() + " did not answer (" + (answer == null ? "no answer" : answer.error())
          + "); start it with an empty replica that joins the group (ReplicaNode.join, replica run --join), then add it");
    }
    if (answer.groups().stream().noneMatch(g -> g.getRaftGroupId().equals(groupId))) {
      throw new ReplicaUnavailableException("replicated database '" + database + "': node " + joining.getId() + " at "
          + joining.getAddress() + " hosts no replica of group " + groupId.getUuid()
          + "; start it with an empty replica that joins the group (ReplicaNode.join, replica run --join), then add it");
    }
  }

  /** The leader's commit index: what a joining replica must hold before it votes. */
  private long committedNow(List<RaftPeer> voters) {
    if (division != null) {
      return division.getRaftLog().getLastCommittedIndex();
    }
    return probe.reports(groupId, voters).stream().filter(r -> r.reachable() && "LEADER".equals(r.role()))
        .mapToLong(ReplicaReport::committedIndex).max()
        .orElseThrow(() -> new ReplicaUnavailableException("replicated database '" + database
            + "': no leader answered with its commit index; the new replica stays a listener until it is added again"));
  }

  private long appliedBy(RaftPeer peer) {
    return probe.reports(groupId, List.of(peer)).stream().filter(ReplicaReport::reachable).mapToLong(ReplicaReport::appliedIndex).findFirst().orElse(-1);
  }

  private void setConfiguration(List<RaftPeer> voters, List<RaftPeer> listeners, String what) {
    try {
      RaftClientReply reply = client.get().admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
          .setServersInNewConf(voters).setListenersInNewConf(listeners).build());
      if (!reply.isSuccess()) {
        throw new ReplicaUnavailableException("replicated database '" + database + "': " + what + " failed: " + reply.getException());
      }
    } catch (IOException e) {
      throw new ReplicaUnavailableException("replicated database '" + database + "': " + what + " failed", e);
    }
  }
}
