package io.commitlane.bench.contention;

import java.nio.file.Path;
import java.util.Map;

/**
 * One scenario of {@code bench}, measured once per run in a fresh directory. The result is the
 * run's JSON fields; its {@code "summary"} entry is the line the run prints (and is left out of
 * the JSON).
 */
interface BenchScenario {
  Map<String, Object> measure(Path cell) throws Exception;
}
