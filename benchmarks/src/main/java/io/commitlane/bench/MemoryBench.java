package io.commitlane.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Memory of N empty open databases, each kind measured in fresh JVMs, rotated, median of runs. */
@Command(name = "memory", mixinStandardHelpOptions = true,
    description = "Memory taken by N empty open databases: commitlane (default and 2^20 buckets) against raw rocksdbjni.")
final class MemoryBench implements Callable<Integer> {
  private static final List<String> KINDS = List.of("commitlane", "commitlane-1m", "optimistic", "plain");

  @Option(names = "--databases", defaultValue = "10", description = "Databases opened per JVM. Default: ${DEFAULT-VALUE}")
  int databases;

  @Option(names = "--runs", defaultValue = "3", description = "Fresh JVMs per kind. Default: ${DEFAULT-VALUE}")
  int runs;

  @Override
  public Integer call() throws Exception {
    Checks.range("--databases", databases, 1, 1000);
    Checks.positive("--runs", runs);
    Map<String, List<Double>> totals = new LinkedHashMap<>();
    KINDS.forEach(k -> totals.put(k, new ArrayList<>()));
    for (int r = 0; r < runs; r++) {
      for (int i = 0; i < KINDS.size(); i++) {
        String kind = KINDS.get((i + r) % KINDS.size());
        double bytes = probe(kind, databases);
        totals.get(kind).add(bytes);
        System.out.printf(Locale.ROOT, "  run %d %-14s %s%n", r + 1, kind, Units.mib(bytes));
      }
    }
    System.out.printf(Locale.ROOT, "%n| %d empty databases | memory (anonymous RSS + live heap) median [range] |%n|---|---|%n", databases);
    for (var e : totals.entrySet()) {
      Spread s = Spread.of(e.getValue());
      System.out.printf(Locale.ROOT, "| %s | %s [%s-%s] |%n", label(e.getKey()), Units.mib(s.median()), Units.mib(s.min()), Units.mib(s.max()));
    }
    return 0;
  }

  private static String label(String kind) {
    return switch (kind) {
      case "commitlane" -> "commitlane, 65,536 buckets (default)";
      case "commitlane-1m" -> "commitlane, 2^20 buckets";
      case "optimistic" -> "raw OptimisticTransactionDB";
      default -> "raw plain RocksDB";
    };
  }

  /** Memory taken by {@code databases} empty open databases of {@code kind}, measured in a fresh JVM. */
  static double probe(String kind, int databases) throws Exception {
    Path dir = Files.createTempDirectory("commitlane-memory");
    try {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process p = new ProcessBuilder(java, "-Xms128m", "-Xmx128m", "-XX:+AlwaysPreTouch", "-cp", System.getProperty("java.class.path"),
          MemoryProbe.class.getName(), kind, dir.toString(), Integer.toString(databases))
          .redirectErrorStream(true).start();
      String result = null;
      StringBuilder all = new StringBuilder();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          all.append(line).append('\n');
          if (line.startsWith("anon=")) {
            result = line;
          }
        }
      }
      if (p.waitFor() != 0 || result == null) {
        throw new IllegalStateException("memory probe for " + kind + " failed:\n" + all);
      }
      String[] parts = result.split(" ");
      return Long.parseLong(parts[0].substring(5)) + Math.max(0, Long.parseLong(parts[1].substring(5)));
    } finally {
      ContentionRunner.deleteRecursively(dir);
    }
  }
}
