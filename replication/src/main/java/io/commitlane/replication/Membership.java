package io.commitlane.replication;

import java.io.IOException;
import java.time.Duration;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.ArrayList;
import java.util.Collection;
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
 * Changes to a group's membership, through a node that holds a replica: voters added (as
 * listeners first, promoted once caught up), listeners added, replicas removed. Each change is a
 * Raft configuration change, committed by the group before it returns.
 */
final class Membership {
  private final String database;
  private final RaftGroupId groupId;
  /** This node's replica; null on a client handle, which cannot change membership. */
  private final RaftServer.Division division;
  private final Supplier<RaftClient> client;
  private final GroupProbe probe;

  Membership(String database, RaftGroupId groupId, RaftServer.Division division, Supplier<RaftClient> client, GroupProbe probe) {
    this.database = database;
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
  void addReplica(ReplicaPeer peer, Duration timeout) throws InterruptedException {
    RaftPeer joining = RaftPeer.newBuilder().setId(peer.id()).setAddress(peer.address()).build();
    List<RaftPeer> voters = new ArrayList<>(currentVoters());
    if (voters.stream().anyMatch(p -> p.getId().equals(joining.getId()))) {
      return;
    }
    List<RaftPeer> listeners = new ArrayList<>(currentListeners());
    listeners.removeIf(p -> p.getId().equals(joining.getId())); // a listener being promoted
    long deadline = System.nanoTime() + timeout.toNanos();
    List<RaftPeer> withJoining = new ArrayList<>(listeners);
    withJoining.add(RaftPeer.newBuilder(joining).setStartupRole(RaftPeerRole.LISTENER).build());
    setConfiguration(voters, withJoining, "add listener " + peer.id());
    long target = division.getRaftLog().getLastCommittedIndex();
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
   * catches up in the background. Called on a node that holds a replica.
   */
  void addListener(ReplicaPeer peer) {
    RaftPeer joining = RaftPeer.newBuilder().setId(peer.id()).setAddress(peer.address()).setStartupRole(RaftPeerRole.LISTENER).build();
    List<RaftPeer> voters = new ArrayList<>(currentVoters());
    List<RaftPeer> listeners = new ArrayList<>(currentListeners());
    if (voters.stream().anyMatch(p -> p.getId().equals(joining.getId()))) {
      throw new InvalidSettingsException(List.of(new SettingError("listeners", peer.id(), "not a voter already")));
    }
    if (listeners.stream().noneMatch(p -> p.getId().equals(joining.getId()))) {
      listeners.add(joining);
      setConfiguration(voters, listeners, "add listener " + peer.id());
    }
  }

  /**
   * Removes the replica on node {@code id}, a voter or a listener, from the group; its node can
   * then be retired (its files are no longer needed). Removing the leader makes another replica
   * lead. Keep an odd number of voters: the group needs a majority of them to commit.
   */
  void removeReplica(String id) {
    List<RaftPeer> voters = new ArrayList<>(currentVoters());
    List<RaftPeer> listeners = new ArrayList<>(currentListeners());
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

  private Collection<RaftPeer> currentVoters() {
    if (division == null) {
      throw new IllegalStateException("membership changes go through a node that holds a replica of '" + database + "'");
    }
    return division.getRaftConf().getCurrentPeers();
  }

  private Collection<RaftPeer> currentListeners() {
    currentVoters(); // the same check
    return division.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER);
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
