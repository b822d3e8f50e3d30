package io.commitlane.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Replica nodes as child JVMs on loopback addresses (one {@link ReplicaNodeProcess} each), so a
 * node can be killed with SIGKILL, frozen with SIGSTOP and thawed with SIGCONT, or restarted with
 * its directory wiped; the test process talks to them as a client.
 */
final class ProcessReplicaCluster implements AutoCloseable {
  /**
   * How long a node may take to start and host the group: a fresh JVM, its replica's database and
   * a round trip to the other members, on two cores that other builds share (a start measured
   * over 60 s at a load average of 25, when all three restarted at once).
   */
  private static final Duration READY_WITHIN = Duration.ofSeconds(120);

  private final Path root;
  private final long snapshotEvery;
  private final boolean rocksDbWal;
  private final List<ReplicaPeer> peers = new ArrayList<>();
  private final Process[] processes;
  /** Where each node's log stood when it was last started: READY is looked for after it. */
  private final long[] logOffsets;

  ProcessReplicaCluster(Path root, int size, long snapshotEvery, boolean rocksDbWal) throws IOException, InterruptedException {
    this.root = root;
    this.snapshotEvery = snapshotEvery;
    this.rocksDbWal = rocksDbWal;
    for (int i = 0; i < size; i++) {
      peers.add(new ReplicaPeer("n" + i, "127.0.0.1", freePort()));
    }
    processes = new Process[size];
    logOffsets = new long[size];
    startAll();
  }

  ReplicationGroup group() {
    return new ReplicationGroup(ReplicaCluster.DATABASE, peers);
  }

  int size() {
    return processes.length;
  }

  Path directory(int i) {
    return root.resolve(peers.get(i).id());
  }

  void start(int i) throws IOException, InterruptedException {
    launch(i);
    awaitReady(i);
  }

  /**
   * Starts node {@code i}, which must be stopped, in this process on its own directory and
   * address, hosting the group with {@code hosted} as its voters (a list the group does not have,
   * or its own with a directory that is not the node's), expecting it to refuse: returns the
   * refusal. The node is closed again.
   *
   * @throws AssertionError if it hosted the group instead
   */
  RuntimeException startRefused(int i, List<ReplicaPeer> hosted) {
    if (processes[i] != null) {
      throw new IllegalStateException("node " + peers.get(i).id() + " is running");
    }
    try (ReplicaNode node = ReplicaNode.start(ReplicaNodeProcess.settings(peers.get(i), directory(i), snapshotEvery, rocksDbWal))) {
      node.host(new ReplicationGroup(ReplicaCluster.DATABASE, hosted));
    } catch (MembershipMismatchException | ForeignReplicaDirectoryException refused) {
      return refused;
    }
    throw new AssertionError("node " + peers.get(i).id() + " hosted the group with " + hosted + " instead of refusing");
  }

  List<ReplicaPeer> peers() {
    return List.copyOf(peers);
  }

  /** SIGKILL every node at once, then start them all again on their directories. */
  void killAllAndRestart() throws Exception {
    for (int i = 0; i < size(); i++) {
      kill(i);
    }
    startAll();
  }

  /** Starts every node that is not running, all at once, and waits until each is ready. */
  void startAll() throws IOException, InterruptedException {
    List<Integer> started = new ArrayList<>();
    for (int i = 0; i < processes.length; i++) {
      if (processes[i] == null) {
        launch(i);
        started.add(i);
      }
    }
    for (int i : started) {
      awaitReady(i);
    }
  }

  private void launch(int i) throws IOException {
    Path dir = directory(i);
    Path tmp = root.resolve(peers.get(i).id() + "-tmp"); // the child's RocksDB native library, removed with root
    Files.createDirectories(tmp);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // -Dreplica.child.logback=FILE gives the children another logging configuration, to diagnose.
    ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-Djava.io.tmpdir=" + tmp,
        "-Dlogback.configurationFile=" + System.getProperty("replica.child.logback", "logback-test.xml"),
        "-cp", System.getProperty("java.class.path"), ReplicaNodeProcess.class.getName(),
        peers.get(i).id(), dir.toString(), ReplicaNodeProcess.formatPeers(peers), Long.toString(snapshotEvery),
        rocksDbWal ? "on" : "off");
    pb.redirectErrorStream(true);
    Path log = log(i); // every start appends: read it when a test fails
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    logOffsets[i] = Files.exists(log) ? Files.size(log) : 0;
    processes[i] = pb.start();
  }

  private Path log(int i) {
    return root.resolve(peers.get(i).id() + ".log");
  }

  private void awaitReady(int i) throws IOException, InterruptedException {
    Process p = processes[i];
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (!readySince(log(i), logOffsets[i])) {
      if (!p.isAlive()) {
        throw new IllegalStateException("replica process " + peers.get(i).id() + " ended before it was ready: exit "
            + p.exitValue() + "; see " + log(i));
      }
      if (System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new IllegalStateException("replica process " + peers.get(i).id() + " not ready in " + READY_WITHIN.toSeconds()
            + " s; see " + log(i));
      }
      Thread.sleep(20); // the child prints READY once it hosts the group
    }
  }

  private static boolean readySince(Path log, long offset) throws IOException {
    if (!Files.exists(log)) {
      return false;
    }
    byte[] all = Files.readAllBytes(log);
    String tail = new String(all, (int) Math.min(offset, all.length), (int) (all.length - Math.min(offset, all.length)), StandardCharsets.UTF_8);
    return tail.contains("READY\n");
  }

  /** SIGKILL: the process ends at once, with whatever its files hold. */
  void kill(int i) throws InterruptedException {
    processes[i].destroyForcibly();
    processes[i].waitFor(30, TimeUnit.SECONDS);
    processes[i] = null;
  }

  /** SIGSTOP: the process stops running but keeps its sockets and state. */
  void freeze(int i) throws IOException, InterruptedException {
    signal(i, "-STOP");
  }

  /** SIGCONT after {@link #freeze}. */
  void thaw(int i) throws IOException, InterruptedException {
    signal(i, "-CONT");
  }

  private void signal(int i, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(processes[i].pid())).start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill " + signal + " failed for " + peers.get(i).id());
    }
  }

  /** Closes the node's input: it closes its replica and exits. */
  void stop(int i) throws InterruptedException, IOException {
    processes[i].getOutputStream().close();
    if (!processes[i].waitFor(60, TimeUnit.SECONDS)) {
      processes[i].destroyForcibly();
    }
    processes[i] = null;
  }

  /** Stops every running node, all at once (each takes a second or more to close its replica). */
  void stopAll() throws InterruptedException, IOException {
    for (Process p : processes) {
      if (p != null) {
        p.getOutputStream().close();
      }
    }
    for (int i = 0; i < processes.length; i++) {
      if (processes[i] != null) {
        stop(i);
      }
    }
  }

  /** The node that leads, as the replicas answer over the network; -1 if none within {@code timeout}. */
  int awaitLeader(ReplicatedDatabase client, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (ReplicaReport r : client.groupStatus()) {
        if ("LEADER".equals(r.role())) {
          return peers.indexOf(peers.stream().filter(p -> p.id().equals(r.replica())).findFirst().orElseThrow());
        }
      }
      Thread.sleep(50); // an election runs on the replicas' own timers
    }
    return -1;
  }

  @Override
  public void close() {
    for (int i = 0; i < processes.length; i++) {
      if (processes[i] != null) {
        processes[i].destroyForcibly();
        try {
          processes[i].waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
