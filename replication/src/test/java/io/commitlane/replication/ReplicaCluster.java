package io.commitlane.replication;

import io.commitlane.replication.internal.apply.Directories;
import java.io.IOException;
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
    nodes[i] = startNode(i);
    databases[i] = nodes[i].host(group());
  }

  /** Starts node {@code i} without hosting anything: the caller hosts (and owns the node until it is closed). */
  ReplicaNode startNode(int i) {
    return ReplicaNode.start(settings(i));
  }

  ReplicaNodeSettings settings(int i) {
    return tuning.apply(ReplicaNodeSettings.of(peers.get(i), directory(i)));
  }

  ReplicaPeer peer(int i) {
    return peers.get(i);
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
    return awaitLeader(java.util.Arrays.asList(databases), timeout);
  }

  /** Waits until one of {@code replicas} (null: not running) leads; its position in the list, or -1 after {@code timeout}. */
  static int awaitLeader(List<ReplicatedDatabase> replicas, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < replicas.size(); i++) {
        if (replicas.get(i) != null && replicas.get(i).status().role().equals("LEADER")) {
          return i;
        }
      }
      Thread.sleep(10); // polling a Raft election, which runs on its own timers
    }
    return -1;
  }

  /** Each running replica's own view (role, term, leader, applied index), for a failure message. */
  static String describe(List<ReplicatedDatabase> replicas) {
    StringBuilder views = new StringBuilder();
    for (ReplicatedDatabase replica : replicas) {
      views.append(replica == null ? "(not running)" : replica.status().toString()).append('\n');
    }
    return views.toString();
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

  /** Stops every running node, all at once: each close waits about a second for Ratis's log worker. */
  void stopAll() {
    closeAll(java.util.stream.IntStream.range(0, nodes.length).filter(i -> nodes[i] != null)
        .mapToObj(i -> (AutoCloseable) () -> stop(i)).toList());
  }

  @Override
  public void close() {
    stopAll();
  }

  /** Closes each of {@code closing} on a thread of its own and waits for all; rethrows the first failure. */
  static void closeAll(List<AutoCloseable> closing) {
    List<Thread> threads = new ArrayList<>();
    java.util.concurrent.atomic.AtomicReference<Exception> failed = new java.util.concurrent.atomic.AtomicReference<>();
    for (AutoCloseable c : closing) {
      Thread t = new Thread(() -> {
        try {
          c.close();
        } catch (Exception e) {
          failed.compareAndSet(null, e);
        }
      }, "close-replica-node");
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    if (failed.get() != null) {
      throw new IllegalStateException("closing a replica node failed", failed.get());
    }
  }

  static int freePort() {
    return io.commitlane.testsupport.LoopbackPorts.freePort();
  }

}
