package io.commitlane.testkit;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Work that {@link CrashHarness} runs in a forked JVM and kills. Implementations need a public
 * no-argument constructor. Report each commit the workload was told succeeded through {@link
 * Reporter#acknowledged}: the harness hands the test exactly those, as printed before the kill.
 */
public interface CrashWorkload {
  void run(Path dir, List<String> args, Reporter reporter) throws Exception;

  /** The workload's {@code key=value} arguments as a map (a later key wins). */
  static Map<String, String> options(List<String> args) {
    Map<String, String> options = new HashMap<>();
    for (String a : args) {
      String[] kv = a.split("=", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException("a workload argument is key=value, not '" + a + "'");
      }
      options.put(kv[0], kv[1]);
    }
    return options;
  }

  /** How the workload tells the parent what happened; thread-safe, each call flushed at once. */
  interface Reporter {
    /** A commit was acknowledged to the workload (it must survive the crash). */
    void acknowledged(String id);

    /** The workload reached a named point (the harness can kill it there). */
    void reached(String marker);
  }
}
