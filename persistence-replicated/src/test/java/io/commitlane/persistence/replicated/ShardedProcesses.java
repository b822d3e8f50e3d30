package io.commitlane.persistence.replicated;

import io.commitlane.testsupport.LoopbackPorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Three {@link ShardedNode}s as child JVMs on loopback ports: a Pekko cluster whose nodes each host a voter replica of
 * the plugins' database. A node can be stopped (SIGTERM, as an operator's deploy does), killed (SIGKILL), frozen
 * (SIGSTOP) and thawed (SIGCONT), and restarted on its directory or on an empty one. Each node's reports ({@code @...$} lines) are collected, in order, per node; its whole
 * output goes to {@code n<i>.log} beside the replica directories.
 */
final class ShardedProcesses implements AutoCloseable {
  /** A fresh JVM with Pekko, a cluster join and a replica, on two cores other builds share. */
  static final Duration START_WITHIN = Duration.ofSeconds(90);
  /** Coordinated shutdown's phases (leaving, the shards' hand-off, the plugins' drain) on two cores other builds share. */
  static final Duration STOP_WITHIN = Duration.ofSeconds(60);

  /** One report line of node {@code node}'s incarnation {@code incarnation} (counted from 0 per node). */
  record Report(long at, int node, int incarnation, String text) {
    String[] words() {
      return text.split(" ");
    }
  }

  private final Path root;
  private final List<Integer> pekkoPorts = new ArrayList<>();
  private final List<Integer> replicaPorts = new ArrayList<>();
  private final Process[] processes = new Process[3];
  private final int[] incarnations = new int[3];
  private final Thread[] readers = new Thread[3];
  private final List<Report> reports = new ArrayList<>();

  ShardedProcesses(Path root) {
    this.root = root;
    for (int i = 0; i < 3; i++) {
      pekkoPorts.add(LoopbackPorts.freePort());
      replicaPorts.add(LoopbackPorts.freePort());
    }
    for (int i = 0; i < 3; i++) {
      launch(i);
    }
    for (int i = 0; i < 3; i++) {
      awaitReport(i, "READY", START_WITHIN);
    }
  }

  Path directory(int node) {
    return root.resolve("n" + (node + 1));
  }

  boolean running(int node) {
    return processes[node] != null;
  }

  private void launch(int node) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Djava.io.tmpdir=" + tmp(node), "-Dlogback.configurationFile=sharded-node-logback.xml",
        "-cp", System.getProperty("java.class.path"), ShardedNode.class.getName(),
        Integer.toString(node), directory(node).toString(), csv(pekkoPorts), csv(replicaPorts),
        incarnations[node] == 0 ? "first" : "rejoin");
    pb.redirectErrorStream(true);
    try {
      Process p = pb.start();
      processes[node] = p;
      int incarnation = incarnations[node];
      Writer log = Files.newBufferedWriter(root.resolve("n" + (node + 1) + ".log"), StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      Thread reader = new Thread(() -> read(node, incarnation, p, log), "n" + (node + 1) + "-output");
      reader.setDaemon(true);
      reader.start();
      readers[node] = reader;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path tmp(int node) {
    Path tmp = root.resolve("n" + (node + 1) + "-tmp"); // the child's RocksDB native library
    try {
      Files.createDirectories(tmp);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tmp;
  }

  private void read(int node, int incarnation, Process p, Writer log) {
    try (log; BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        log.write(line);
        log.write('\n');
        log.flush(); // read by a failure's message while the node runs
        // A line cut by a kill has no closing $: it is not a report.
        if (line.startsWith("@") && line.endsWith("$")) {
          synchronized (reports) {
            reports.add(new Report(reports.size(), node, incarnation, line.substring(1, line.length() - 1)));
            reports.notifyAll();
          }
        }
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  private static String csv(List<Integer> ports) {
    return ports.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  /** Every report so far, in each node's order. */
  List<Report> reports() {
    synchronized (reports) {
      return List.copyOf(reports);
    }
  }

  /** Reports whose first word is {@code kind}. */
  List<Report> reports(String kind) {
    return reports().stream().filter(r -> r.words()[0].equals(kind)).toList();
  }

  /**
   * Waits until a report of the node's current incarnation matches, and returns it. Waits on the reports' monitor,
   * woken by each new report (and every 200 ms to check the process is alive).
   */
  Report awaitReport(int node, Predicate<Report> match, String what, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    synchronized (reports) {
      while (true) {
        Optional<Report> found = reports.stream()
            .filter(r -> r.node() == node && r.incarnation() == incarnations[node] && match.test(r)).findFirst();
        if (found.isPresent()) {
          return found.get();
        }
        if (processes[node] == null || !processes[node].isAlive()) {
          throw new AssertionError("node n" + (node + 1) + " ended before " + what + "\n" + tail(node));
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("node n" + (node + 1) + ": no " + what + " within " + within.toSeconds() + " s\n" + tail(node));
        }
        try {
          reports.wait(Math.min(200, TimeUnit.NANOSECONDS.toMillis(left) + 1));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
      }
    }
  }

  Report awaitReport(int node, String kind, Duration within) {
    return awaitReport(node, r -> r.words()[0].equals(kind), kind, within);
  }

  /**
   * Waits until {@code condition} holds over all reports (checked at each new report and every 200 ms).
   */
  void awaitReports(Predicate<List<Report>> condition, String what, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    synchronized (reports) {
      while (!condition.test(reports)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("no " + what + " within " + within.toSeconds() + " s\n" + tail(0) + tail(1) + tail(2));
        }
        try {
          reports.wait(Math.min(200, TimeUnit.NANOSECONDS.toMillis(left) + 1));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
      }
    }
  }

  /** The longest line of a node's output a failure's message shows whole. */
  private static final int TAIL_LINE_CHARS = 500;

  /** The last lines of the node's output, for a failure's message. */
  String tail(int node) {
    try {
      // Ratis's retry warnings about a stopped peer would fill the tail; the rest tells what the node did.
      List<String> lines = Files.readAllLines(root.resolve("n" + (node + 1) + ".log")).stream()
          .filter(l -> !l.contains("WARN  o.a.r.")).toList();
      // A JOURNAL or STATE report line lists every entity: shortened, so the message stays readable.
      List<String> last = lines.subList(Math.max(0, lines.size() - 40), lines.size()).stream()
          .map(l -> l.length() <= TAIL_LINE_CHARS ? l : l.substring(0, TAIL_LINE_CHARS) + " ... (" + l.length() + " chars)")
          .toList();
      return "--- n" + (node + 1) + ".log (last lines)\n" + String.join("\n", last) + "\n";
    } catch (IOException e) {
      return "--- n" + (node + 1) + ".log unreadable: " + e + "\n";
    }
  }

  /** Sends one command line to the node. */
  void send(int node, String command) {
    try {
      OutputStream in = processes[node].getOutputStream();
      in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("node n" + (node + 1) + " does not take commands\n" + tail(node), e);
    }
  }

  /**
   * SIGTERM, as an operator's deploy stops a node: the JVM's shutdown hook runs Pekko's coordinated shutdown (the node
   * leaves the cluster, sharding hands its shards off, the plugins drain, the replica closes), then the node ends.
   * Returns how long that took; every report the node printed is collected when this returns.
   */
  Duration stop(int node) throws InterruptedException {
    long start = System.nanoTime();
    processes[node].destroy();
    if (!processes[node].waitFor(STOP_WITHIN.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError("node n" + (node + 1) + " still runs " + STOP_WITHIN.toSeconds() + " s after SIGTERM\n"
          + tail(node));
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    readers[node].join(TimeUnit.SECONDS.toMillis(10)); // its output ends with the process: its last reports
    processes[node] = null;
    return took;
  }

  /** SIGKILL: the node ends at once, with whatever its files hold. */
  void kill(int node) throws InterruptedException {
    processes[node].destroyForcibly();
    if (!processes[node].waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("node n" + (node + 1) + " still runs 30 s after SIGKILL");
    }
    processes[node] = null;
  }

  /** Deletes the node's replica directory (the node must be stopped). */
  void wipe(int node) throws IOException {
    if (processes[node] != null) {
      throw new IllegalStateException("node n" + (node + 1) + " is running");
    }
    try (Stream<Path> all = Files.walk(directory(node))) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** Starts the stopped node on its directory and waits until it is Up in a cluster of three. */
  void restart(int node) {
    incarnations[node]++;
    launch(node);
    awaitReport(node, "READY", START_WITHIN);
  }

  /** SIGSTOP: the node stops running but keeps its sockets and state. */
  void freeze(int node) throws IOException, InterruptedException {
    signal(node, "-STOP");
  }

  /** SIGCONT after {@link #freeze}. */
  void thaw(int node) throws IOException, InterruptedException {
    signal(node, "-CONT");
  }

  private void signal(int node, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(processes[node].pid())).start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill " + signal + " failed for n" + (node + 1));
    }
  }

  @Override
  public void close() {
    for (int i = 0; i < 3; i++) {
      if (processes[i] != null) {
        processes[i].destroyForcibly();
        try {
          processes[i].waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        processes[i] = null;
      }
    }
  }
}
