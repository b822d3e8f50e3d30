package io.commitlane.testkit;

import java.nio.file.Path;
import java.util.List;

/**
 * Work that {@link CrashHarness} runs in a forked JVM and kills. Implementations need a public
 * no-argument constructor. Report each commit the workload was told succeeded through {@link
 * Reporter#acknowledged}: the harness hands the test exactly those, as printed before the kill.
 */
public interface CrashWorkload {
  void run(Path dir, List<String> args, Reporter reporter) throws Exception;

  /** How the workload tells the parent what happened; thread-safe, each call flushed at once. */
  interface Reporter {
    /** A commit was acknowledged to the workload (it must survive the crash). */
    void acknowledged(String id);

    /** The workload reached a named point (the harness can kill it there). */
    void reached(String marker);
  }
}
