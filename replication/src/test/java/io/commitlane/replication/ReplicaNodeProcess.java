package io.commitlane.replication;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One replica node in a process of its own, for the kill -9 and SIGSTOP tests. Arguments: its id,
 * its directory, the group's voters as {@code id=host:port,...}, the snapshot interval in entries,
 * and whether RocksDB writes its WAL ({@code on}/{@code off}). Prints {@code READY} once it hosts
 * the group; closes when its standard input closes.
 */
public final class ReplicaNodeProcess {
  private ReplicaNodeProcess() {}

  public static void main(String[] args) throws Exception {
    String id = args[0];
    Path dir = Path.of(args[1]);
    List<ReplicaPeer> peers = parsePeers(args[2]);
    long snapshotEvery = Long.parseLong(args[3]);
    boolean wal = args[4].equals("on");
    ReplicaPeer self = peers.stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow();
    ReplicaNode node = ReplicaNode.start(settings(self, dir, snapshotEvery, wal));
    node.host(new ReplicationGroup(ReplicaCluster.DATABASE, peers));
    System.out.println("READY");
    System.out.flush();
    while (System.in.read() != -1) {
      // wait for the parent to close our input
    }
    node.close();
  }

  /** How every node of the process tests runs: short elections, small log files, frequent snapshots. */
  static ReplicaNodeSettings settings(ReplicaPeer self, Path dir, long snapshotEvery, boolean wal) {
    return ReplicaNodeSettings.of(self, dir)
        .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600))
        .withSnapshotEveryEntries(snapshotEvery)
        .withLogSegmentBytes(64 * 1024)
        .withRocksDbWal(wal);
  }

  static List<ReplicaPeer> parsePeers(String spec) {
    List<ReplicaPeer> peers = new ArrayList<>();
    for (String p : spec.split(",")) {
      String[] idAddress = p.split("=", 2);
      String[] hostPort = idAddress[1].split(":", 2);
      peers.add(new ReplicaPeer(idAddress[0], hostPort[0], Integer.parseInt(hostPort[1])));
    }
    return peers;
  }

  static String formatPeers(List<ReplicaPeer> peers) {
    return String.join(",", peers.stream().map(p -> p.id() + "=" + p.host() + ":" + p.port()).toList());
  }
}
