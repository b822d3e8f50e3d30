package io.commitlane.bench.replication;

import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.HostProcess;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code replication}'s etcd peer: three etcd members on free loopback ports, each with its own
 * data directory under {@code dir}, one cluster ({@code --initial-cluster} on 127.0.0.1), every
 * other setting etcd's default (so the write-ahead log is fsynced before a write is acknowledged,
 * as commitlane's Raft log is). Each member's output goes to {@code etcd-<i>.log} beside its data.
 *
 * <p>No member outlives the run: each runs under a small {@code /bin/sh} watchdog that ends it once
 * its standard input closes, which {@link #close()} does, and which the operating system does
 * when this JVM dies in any way (Ctrl-C, an exception, {@code kill -9}). {@link #close()} then
 * waits for the watchdogs and kills what is left.
 */
final class EtcdCluster implements AutoCloseable {
  /** Debian's package for the {@code etcd} server, named in the message when it is missing. */
  static final String PACKAGE = "etcd-server";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
  /**
   * Runs {@code "$@"} (etcd and its flags) in the background, waits for standard input to close,
   * then stops it: SIGTERM, and SIGKILL if it still runs 5 s later (a member whose peers are gone
   * can take longer to stop than that; its data is thrown away anyway).
   */
  private static final String WATCHDOG = "\"$@\" </dev/null & pid=$!; read -r line; kill -TERM $pid 2>/dev/null; n=0;"
      + " while kill -0 $pid 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done; kill -KILL $pid 2>/dev/null; wait $pid";

  private final List<Process> watchdogs;
  private final List<String> endpoints;
  private final String version;

  private EtcdCluster(List<Process> watchdogs, List<String> endpoints, String version) {
    this.watchdogs = watchdogs;
    this.endpoints = endpoints;
    this.version = version;
  }

  /**
   * The etcd executable {@code etcd} names: a path (anything with a slash) if it is an executable
   * file, else the first executable of that name on {@code PATH}; empty when there is none.
   */
  static Optional<Path> find(String etcd) {
    if (etcd.contains(File.separator)) {
      Path p = Path.of(etcd);
      return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
    }
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path p = Path.of(dir, etcd);
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }

  /** What the run says when {@code etcd} names no executable. */
  static String notInstalled(String etcd) {
    return "etcd peer: not installed (no executable " + (etcd.contains(File.separator) ? "at " + etcd : "'" + etcd + "' on PATH")
        + "); commitlane is measured without it. To compare with etcd, install it (Debian: apt-get install " + PACKAGE
        + ") or name its binary with --etcd PATH";
  }

  /** Starts {@code size} members of a new cluster under {@code dir} and waits until each answers. */
  static EtcdCluster start(Path binary, Path dir, int size) throws IOException, InterruptedException {
    String version = version(binary);
    int[] ports = HostProcess.freePorts(2 * size);
    List<String> clientUrls = new ArrayList<>();
    List<String> peerUrls = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      clientUrls.add("http://127.0.0.1:" + ports[2 * i]);
      peerUrls.add("http://127.0.0.1:" + ports[2 * i + 1]);
    }
    List<String> members = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      members.add("e" + i + "=" + peerUrls.get(i));
    }
    String token = "commitlane-bench-" + UUID.randomUUID();
    Files.createDirectories(dir);
    List<Process> started = new ArrayList<>();
    EtcdCluster cluster = new EtcdCluster(started, List.copyOf(clientUrls), version);
    try {
      for (int i = 0; i < size; i++) {
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", WATCHDOG, "etcd-watchdog", binary.toString(),
            "--name", "e" + i, "--data-dir", dir.resolve("e" + i).toString(),
            "--listen-client-urls", clientUrls.get(i), "--advertise-client-urls", clientUrls.get(i),
            "--listen-peer-urls", peerUrls.get(i), "--initial-advertise-peer-urls", peerUrls.get(i),
            "--initial-cluster", String.join(",", members), "--initial-cluster-token", token, "--initial-cluster-state", "new",
            "--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn"));
        Path log = dir.resolve("etcd-" + i + ".log");
        started.add(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start());
      }
      cluster.awaitLeader(START_TIMEOUT);
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** {@code etcd --version}'s first line ("etcd Version: 3.4.23"). */
  private static String version(Path binary) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    return out.lines().findFirst().orElse("etcd (version unknown)").trim();
  }

  String version() {
    return version;
  }

  int size() {
    return endpoints.size();
  }

  /** Member {@code i}'s client URL. */
  String endpoint(int i) {
    return endpoints.get(i);
  }

  /** A client of member {@code i} alone (its requests are not balanced over the others). */
  Client client(int i) {
    return Client.builder().endpoints(endpoints.get(i)).build();
  }

  /** The member that leads now, asked of each member in turn; -1 if none says it leads. */
  int leader() throws InterruptedException {
    for (int i = 0; i < size(); i++) {
      try (Client c = client(i)) {
        StatusResponse s = c.getMaintenanceClient().statusMember(endpoints.get(i)).get(5, TimeUnit.SECONDS);
        if (s.getLeader() != 0 && s.getLeader() == s.getHeader().getMemberId()) {
          return i;
        }
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        // not up yet, or not answering: ask the next one
      }
    }
    return -1;
  }

  /** Waits until every member answers and one of them leads. */
  int awaitLeader(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (Process w : watchdogs) {
        if (!w.isAlive()) {
          throw new IllegalStateException("an etcd member exited at start (exit " + w.exitValue() + "); see its etcd-<i>.log");
        }
      }
      int l = leader();
      if (l >= 0) {
        return l;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no etcd member led within " + timeout.toSeconds() + " s; see the etcd-<i>.log files");
      }
      ContentionRunner.pause(0.1);
    }
  }

  /**
   * CPU time the members have used so far (user and system, every thread), in nanoseconds; -1 if
   * the operating system does not tell. Tick-grained (10 ms on Linux): use over seconds.
   */
  long cpuNanos() {
    long total = 0;
    for (ProcessHandle h : members()) {
      Optional<Duration> cpu = h.info().totalCpuDuration();
      if (cpu.isEmpty()) {
        return -1;
      }
      total += cpu.get().toNanos();
    }
    return total;
  }

  /** The etcd processes themselves (the watchdogs' children). */
  private List<ProcessHandle> members() {
    return watchdogs.stream().flatMap(w -> w.toHandle().children()).collect(Collectors.toList());
  }

  /** Stops every member (SIGTERM, SIGKILL 5 s later) and waits; kills whatever is still there after that. */
  @Override
  public void close() {
    List<ProcessHandle> all = new ArrayList<>();
    for (Process w : watchdogs) {
      w.toHandle().descendants().forEach(all::add);
      all.add(w.toHandle());
      try {
        w.getOutputStream().close(); // the watchdog's cue
      } catch (IOException e) {
        // already closed: the watchdog has its cue
      }
    }
    long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    try {
      for (Process w : watchdogs) {
        w.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      all.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
  }
}
