package io.commitlane.bench.contention;

import io.commitlane.bench.memory.MemoryBench;
import io.commitlane.bench.report.Units;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** memory: the memory {@code databases} empty databases take, measured in a fresh JVM ({@link MemoryBench#probe}). */
final class BenchMemoryScenario implements BenchScenario {
  private final int databases;

  BenchMemoryScenario(int databases) {
    this.databases = databases;
  }

  @Override
  public Map<String, Object> measure(Path cell) throws Exception {
    double bytes = MemoryBench.probe("commitlane", databases);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("bytes", bytes);
    m.put("summary", String.format(Locale.ROOT, "%d empty databases: %s (anonymous RSS + live heap)", databases, Units.mib(bytes)));
    return m;
  }
}
