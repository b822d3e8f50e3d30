package io.commitlane.testkit;

import java.nio.file.Path;
import java.util.List;

/**
 * What a crash run left: the commits acknowledged before the kill (every line the child printed,
 * read to the end after the kill), whether the harness killed it (false: it finished or failed
 * first), its exit code, the markers it reached, and its stderr for diagnosis.
 */
public record CrashRun(Path dir, List<String> acknowledged, List<String> markers, boolean killed, int exitCode, String stderr) {
  /** The acknowledged ids as numbers, for workloads that number their commits. */
  public List<Long> acknowledgedNumbers() {
    return acknowledged.stream().map(Long::parseLong).toList();
  }
}
