package io.commitlane.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Replica nodes in this JVM on loopback addresses, one directory each, hosting one replicated
 * database: nodes can be stopped (as a crash would leave their files: the process keeps nothing
 * else), restarted on the same directory, or restarted with their directory wiped.
 */
final class ReplicaCluster implements AutoCloseable {
  static final String DATABASE = "accounts";

  private final Path root;
  private final List<ReplicaPeer> peers = new ArrayList<>();
  private final ReplicaNode[] nodes;
  private final ReplicatedDatabase[] databases;
  private final UnaryOperator<ReplicaNodeSettings> tuning;

  ReplicaCluster(Path root, int size, UnaryOperator<ReplicaNodeSettings> tuning) {
    this.root = root;
    this.tuning = tuning;
    for (int i = 0; i < size; i++) {
      peers.add(new ReplicaPeer("n" + i, "127.0.0.1", freePort()));
    }
    nodes = new ReplicaNode[size];
    databases = new ReplicatedDatabase[size];
    for (int i = 0; i < size; i++) {
      start(i);
    }
  }

  ReplicaCluster(Path root, int size) {
    this(root, size, s -> s.withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600)));
  }

  ReplicationGroup group() {
    return new ReplicationGroup(DATABASE, peers);
  }

  int size() {
    return nodes.length;
  }

  void start(int i) {
    nodes[i] = ReplicaNode.start(tuning.apply(ReplicaNodeSettings.of(peers.get(i), directory(i))));
    databases[i] = nodes[i].host(group());
  }

  void stop(int i) {
    nodes[i].close();
    nodes[i] = null;
    databases[i] = null;
  }

  boolean isRunning(int i) {
    return nodes[i] != null;
  }

  /** Stops node {@code i}, deletes its whole directory and starts it again, empty. */
  void wipe(int i) throws IOException {
    if (nodes[i] != null) {
      stop(i);
    }
    Directories.delete(directory(i));
    start(i);
  }

  Path directory(int i) {
    return root.resolve(peers.get(i).id());
  }

  ReplicatedDatabase database(int i) {
    return databases[i];
  }

  /** The running node that leads now, waiting for an election if there is none; -1 after {@code timeout}. */
  int awaitLeader(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < nodes.length; i++) {
        if (databases[i] != null && databases[i].status().role().equals("LEADER")) {
          return i;
        }
      }
      Thread.sleep(10); // polling a Raft election, which runs on its own timers
    }
    return -1;
  }

  /** Waits until every running replica applied at least {@code index}. */
  void awaitApplied(long index, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < nodes.length; i++) {
      while (databases[i] != null && databases[i].status().appliedIndex() < index) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("replica " + i + " applied only " + databases[i].status().appliedIndex() + " of " + index);
        }
        Thread.sleep(5);
      }
    }
  }

  @Override
  public void close() {
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i] != null) {
        stop(i);
      }
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
