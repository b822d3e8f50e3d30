package io.commitlane.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs a {@link CrashWorkload} in a forked JVM and kills it with SIGKILL (kill -9) when a
 * condition is met: after a number of acknowledged commits, or when the workload reports a named
 * point (for example a commit held at a stage by {@link CrashPoints}). The test then reopens the
 * directory and checks what survived against {@link CrashRun#acknowledged()}.
 *
 * <pre>{@code
 * CrashRun run = CrashHarness.of(MyWorkload.class, dir).killAfterAcks(40).run();
 * // reopen dir, then: every id in run.acknowledged() must be readable
 * }</pre>
 */
public final class CrashHarness {
  private final Class<? extends CrashWorkload> workload;
  private final Path dir;
  private List<String> args = List.of();
  private List<String> jvmArgs = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1");
  private int killAfterAcks = -1;
  private String killAtMarker;
  private Duration timeout = Duration.ofSeconds(60);

  private CrashHarness(Class<? extends CrashWorkload> workload, Path dir) {
    this.workload = Objects.requireNonNull(workload, "workload");
    this.dir = Objects.requireNonNull(dir, "dir");
  }

  public static CrashHarness of(Class<? extends CrashWorkload> workload, Path dir) {
    return new CrashHarness(workload, dir);
  }

  public CrashHarness args(String... args) {
    this.args = List.of(args);
    return this;
  }

  public CrashHarness jvmArgs(String... jvmArgs) {
    this.jvmArgs = List.of(jvmArgs);
    return this;
  }

  /** Kill once this many commits were acknowledged (the kill lands wherever the workload then is). */
  public CrashHarness killAfterAcks(int n) {
    this.killAfterAcks = n;
    return this;
  }

  /** Kill when the workload reports this marker (it should then wait there). */
  public CrashHarness killAt(String marker) {
    this.killAtMarker = marker;
    return this;
  }

  /** Fail the run if neither condition nor the workload's end happens within this time (default 60 s). */
  public CrashHarness timeout(Duration timeout) {
    this.timeout = timeout;
    return this;
  }

  /** Runs the workload until a kill condition (or its end), kills it, and returns what it left. */
  public CrashRun run() throws IOException, InterruptedException {
    Child child = start();
    boolean triggered = child.trigger.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    CrashRun run = child.kill();
    if (!triggered) {
      throw new StageTimeoutException("the crash workload " + workload.getSimpleName() + " reached neither "
          + (killAtMarker != null ? "marker " + killAtMarker : killAfterAcks + " acknowledgements") + " within " + timeout
          + "; acknowledged " + run.acknowledged().size() + ", markers " + run.markers() + "; stderr:\n" + run.stderr());
    }
    return run;
  }

  /**
   * Starts the workload and returns at once, for tests that act on the directory while the child
   * holds it (for example to check that a second process is refused). The kill conditions set on
   * this harness are not applied: the test kills the child with {@link Child#kill()}.
   */
  public Child start() throws IOException {
    // The child's own temporary directory, removed after the kill: rocksdbjni extracts its 17 MB
    // native library there on every start, and a killed JVM never deletes it.
    Path tmp = Files.createTempDirectory("commitlane-crash-child-");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Djava.io.tmpdir=" + tmp);
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(CrashChild.class.getName());
    command.add(workload.getName());
    command.add(dir.toString());
    command.addAll(args);
    try {
      return new Child(new ProcessBuilder(command).start(), tmp);
    } catch (IOException | RuntimeException e) {
      deleteRecursively(tmp);
      throw e;
    }
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // best effort: a leftover temporary file is not worth failing a crash test for
    }
  }

  /** A running workload JVM: what it printed so far, and the kill. */
  public final class Child {
    private final Process process;
    private final CompletableFuture<String> stderr;
    private final List<String> acks = new ArrayList<>();
    private final List<String> markers = new ArrayList<>();
    private final CountDownLatch trigger = new CountDownLatch(1);
    private final Thread reader;
    private final Path tmp;

    private Child(Process process, Path tmp) {
      this.process = process;
      this.tmp = tmp;
      this.stderr = drain(process.getErrorStream());
      this.reader = new Thread(this::read, "crash-harness-reader");
      reader.start();
    }

    private void read() {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (acks) {
            if (line.startsWith("ACK ")) {
              acks.add(line.substring(4));
              if (killAfterAcks >= 0 && acks.size() >= killAfterAcks) {
                trigger.countDown();
              }
            } else if (line.startsWith("AT ")) {
              markers.add(line.substring(3));
              if (line.substring(3).equals(killAtMarker)) {
                trigger.countDown();
              }
              acks.notifyAll();
            }
          }
        }
      } catch (IOException e) {
        // the process died: what was read is what was acknowledged
      } finally {
        trigger.countDown(); // end of output: the workload finished or died
        synchronized (acks) {
          acks.notifyAll();
        }
      }
    }

    /**
     * Waits until the workload reports {@code marker}.
     *
     * @throws StageTimeoutException if it does not within {@code timeout}, or ends first
     */
    public void awaitMarker(String marker, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      synchronized (acks) {
        while (!markers.contains(marker)) {
          long left = deadline - System.nanoTime();
          if (left <= 0 || (!process.isAlive() && reader.getState() == Thread.State.TERMINATED)) {
            throw new StageTimeoutException("the workload " + workload.getSimpleName() + " did not reach " + marker
                + " within " + timeout + "; markers " + markers + "; stderr:\n" + (process.isAlive() ? "" : stderr.join()));
          }
          acks.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
      }
    }

    /** SIGKILL (kill -9: no shutdown hooks, no flush, no close) if still running; what it left. */
    public CrashRun kill() throws InterruptedException {
      boolean killed = false;
      if (process.isAlive()) {
        process.destroyForcibly();
        killed = true;
      }
      process.waitFor();
      deleteRecursively(tmp);
      reader.join(TimeUnit.SECONDS.toMillis(30));
      String err = stderr.join();
      synchronized (acks) {
        return new CrashRun(dir, List.copyOf(acks), List.copyOf(markers), killed, process.exitValue(), err);
      }
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    CompletableFuture<String> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        result.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        result.complete("");
      }
    }, "crash-harness-stderr");
    t.setDaemon(true);
    t.start();
    return result;
  }
}
