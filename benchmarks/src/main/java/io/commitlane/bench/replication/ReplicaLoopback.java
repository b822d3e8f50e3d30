package io.commitlane.bench.replication;

import io.commitlane.bench.replica.ReplicaStatusEndpoint;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicaStatus;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicationGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * Replica nodes in this JVM on 127.0.0.1, one directory each under {@code root}, all voters of
 * one replicated database. A node can be stopped ({@link ReplicaNode#close()}, as the bench's
 * "leader stops") and started again on the same directory and port.
 *
 * <p>Handles of a stopped node are null: callers (the loads' completion threads among them) look a
 * node's handle up for every commit.
 */
public final class ReplicaLoopback implements AutoCloseable {
  public static final String DATABASE = "bench";

  private final Path root;
  private final List<ReplicaPeer> peers = new ArrayList<>();
  private final UnaryOperator<ReplicaNodeSettings> tuning;
  private final AtomicReferenceArray<ReplicaNode> nodes;
  private final AtomicReferenceArray<ReplicatedDatabase> databases;

  /** Starts {@code size} nodes with {@link ReplicaNodeSettings#of} changed by {@code tuning}. */
  public ReplicaLoopback(Path root, int size, UnaryOperator<ReplicaNodeSettings> tuning) {
    this.root = root;
    this.tuning = tuning;
    try {
      for (int port : ReplicaStatusEndpoint.freePortPairs(size)) { // each with its status endpoint's port free
        peers.add(new ReplicaPeer("n" + peers.size(), "127.0.0.1", port));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback ports for " + size + " replica nodes", e);
    }
    nodes = new AtomicReferenceArray<>(size);
    databases = new AtomicReferenceArray<>(size);
    try {
      for (int i = 0; i < size; i++) {
        start(i);
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  int size() {
    return nodes.length();
  }

  public ReplicationGroup group() {
    return new ReplicationGroup(DATABASE, peers);
  }

  /** The settings node {@code i} runs with. */
  ReplicaNodeSettings settings(int i) {
    return tuning.apply(ReplicaNodeSettings.of(peers.get(i), root.resolve(peers.get(i).id())));
  }

  String id(int i) {
    return peers.get(i).id();
  }

  /** Starts node {@code i} on its directory (resuming what it holds) and hosts the database. */
  void start(int i) {
    ReplicaNode n = ReplicaNode.start(settings(i));
    nodes.set(i, n);
    databases.set(i, n.host(group()));
  }

  /** Stops node {@code i}: its Raft server and its replica close; its files stay. */
  public void stop(int i) {
    ReplicaNode n = nodes.getAndSet(i, null);
    databases.set(i, null);
    n.close();
  }

  boolean isRunning(int i) {
    return nodes.get(i) != null;
  }

  /** Node {@code i}'s handle, or null while it is stopped. */
  public ReplicatedDatabase database(int i) {
    return databases.get(i);
  }

  /** Node {@code i}'s status, or null while it is stopped (or stopping). */
  ReplicaStatus status(int i) {
    ReplicatedDatabase db = databases.get(i);
    try {
      return db == null ? null : db.status();
    } catch (RuntimeException e) {
      return null; // stopped while asked
    }
  }

  /** The running node that leads now, or -1. */
  int leader() {
    for (int i = 0; i < size(); i++) {
      ReplicaStatus s = status(i);
      if (s != null && s.role().equals("LEADER")) {
        return i;
      }
    }
    return -1;
  }

  /** Waits for a leader among the running nodes (an election runs on Ratis's own timers). */
  public int awaitLeader(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      int l = leader();
      if (l >= 0) {
        return l;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no replica of '" + DATABASE + "' became leader within " + timeout.toSeconds() + " s");
      }
      Thread.sleep(10); // polling an election
    }
  }

  /** Waits until every running node applied at least what the leader had applied when called. */
  void awaitLevel(Duration timeout) throws InterruptedException {
    int l = awaitLeader(timeout);
    ReplicaStatus leader = status(l);
    long target = leader == null ? 0 : leader.appliedIndex();
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < size(); i++) {
      for (ReplicaStatus s = status(i); s != null && s.appliedIndex() < target; s = status(i)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("replica " + id(i) + " applied only " + s.appliedIndex() + " of " + target + " within "
              + timeout.toSeconds() + " s; " + describe());
        }
        Thread.sleep(10); // polling replication
      }
    }
  }

  /** Every node's role, term and indexes, for a failure message. */
  String describe() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < size(); i++) {
      ReplicaStatus s = status(i);
      sb.append(i == 0 ? "" : ", ").append(id(i)).append(": ");
      sb.append(s == null ? "stopped" : s.role() + " term " + s.term() + ", applied " + s.appliedIndex() + ", snapshot " + s.snapshotIndex()
          + ", log from " + s.logStartIndex() + (s.followerMatchIndexes().isEmpty() ? "" : ", match " + s.followerMatchIndexes()));
    }
    return sb.toString();
  }

  /**
   * The bytes of node {@code i}'s Raft log: every file under {@code raft/<group>/current} of its
   * directory (the log segments and Ratis's metadata; snapshots live beside it, in {@code sm}).
   */
  long raftLogBytes(int i) {
    Path raft = settings(i).directory().resolve("raft");
    if (!Files.isDirectory(raft)) {
      return 0;
    }
    long total = 0;
    try (Stream<Path> groups = Files.list(raft)) {
      for (Path g : groups.filter(p -> Files.isDirectory(p.resolve("current"))).toList()) {
        total += bytesUnder(g.resolve("current"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return total;
  }

  private static long bytesUnder(Path dir) throws IOException {
    long total = 0;
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        try {
          if (Files.isRegularFile(p)) {
            total += Files.size(p);
          }
        } catch (IOException e) {
          // a segment purged or renamed while walking: it no longer counts
        }
      }
    } catch (UncheckedIOException e) {
      // the walk met a file removed under it: count what it saw
    }
    return total;
  }

  /** Stops every running node, all at once: each {@code close()} waits about a second for Ratis's log to close. */
  @Override
  public void close() {
    List<Thread> stopping = new ArrayList<>();
    AtomicReference<RuntimeException> first = new AtomicReference<>();
    for (int i = 0; i < size(); i++) {
      if (isRunning(i)) {
        int node = i;
        Thread t = new Thread(() -> {
          try {
            stop(node);
          } catch (RuntimeException e) {
            first.compareAndSet(null, e);
          }
        }, "commitlane-replica-stop-" + id(i));
        t.start();
        stopping.add(t);
      }
    }
    for (Thread t : stopping) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (first.get() != null) {
      throw first.get();
    }
  }
}
