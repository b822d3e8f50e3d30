package io.commitlane.bench.harness;

import io.commitlane.bench.Main;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One host of the failover bench: a separate JVM running {@code cluster host} on 127.0.0.1, its output in a log file. */
public final class HostProcess {
  public final int index;
  public final int port;
  public final Path log;
  public final Process process;
  /** Killed or frozen by an event: no longer a candidate victim. */
  public boolean gone;

  private HostProcess(int index, int port, Path log, Process process) {
    this.index = index;
    this.port = port;
    this.log = log;
    this.process = process;
  }

  /** Starts host {@code index} on {@code port}, joining the seed nodes' ports, with its databases under {@code data}. */
  public static HostProcess start(int index, int port, Path log, List<Integer> seeds, Path data, String role, List<String> settings)
      throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "cluster", "host", "--port", Integer.toString(port),
        "--seeds", seeds.get(0) + "," + seeds.get(1), "--data-dir", data.toString(), "--role", role));
    for (String s : settings) {
      command.add("--set");
      command.add(s);
    }
    return new HostProcess(index, port, log, new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start());
  }

  public String address() {
    return "pekko://commitlane@127.0.0.1:" + port;
  }

  /** Sends {@code signal} (STOP, CONT, ...) with kill(1), if the process still runs. */
  public void signal(String signal) throws IOException, InterruptedException {
    if (process.isAlive()) {
      new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
    }
  }

  /** Resumes a frozen host and kills it, if it still runs: nothing outlives the run. */
  public void destroy() throws IOException, InterruptedException {
    if (process.isAlive()) {
      signal("CONT");
      process.destroyForcibly();
    }
  }

  /** SIGTERM every host still running (coordinated shutdown: each hands its databases off and exits), then wait. */
  public static void stopAll(List<HostProcess> hosts) throws InterruptedException {
    for (HostProcess h : hosts) {
      if (h.process.isAlive()) {
        h.process.destroy();
      }
    }
    for (HostProcess h : hosts) {
      if (!h.process.waitFor(120, TimeUnit.SECONDS)) {
        h.process.destroyForcibly();
        h.process.waitFor();
      }
    }
  }

  /** {@code n} ports free on this machine now. */
  public static int[] freePorts(int n) throws IOException {
    int[] ports = new int[n];
    List<ServerSocket> open = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0);
        open.add(s);
        ports[i] = s.getLocalPort();
      }
    } finally {
      for (ServerSocket s : open) {
        s.close();
      }
    }
    return ports;
  }
}
