package io.commitlane.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What a figure was measured on: cores, CPU model, memory, JDK, OS, and the load when the run began. */
public record MachineInfo(int cores, String cpu, String memory, String jdk, String os, String loadAverage) {
  public static MachineInfo current() {
    return new MachineInfo(Runtime.getRuntime().availableProcessors(),
        procField("/proc/cpuinfo", "model name").orElse(System.getProperty("os.arch")),
        procField("/proc/meminfo", "MemTotal").map(MachineInfo::gib).orElse("unknown"),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
        System.getProperty("os.name") + " " + System.getProperty("os.version"),
        firstLine("/proc/loadavg").map(l -> String.join(" ", List.of(l.split(" ")).subList(0, 3))).orElse("unknown"));
  }

  /** "2 cores (AMD EPYC), 23.4 GiB, OpenJDK 64-Bit Server VM 17.0.15, Linux 6.1, load average 0.42 0.74 1.70 at the start" */
  public String describe() {
    return String.format(Locale.ROOT, "%d cores (%s), %s, %s, %s, load average %s at the start", cores, cpu, memory, jdk, os, loadAverage);
  }

  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cores", cores);
    m.put("cpu", cpu);
    m.put("memory", memory);
    m.put("jdk", jdk);
    m.put("os", os);
    m.put("loadAverageAtStart", loadAverage);
    return m;
  }

  private static java.util.Optional<String> procField(String file, String field) {
    try {
      return Files.readAllLines(Path.of(file)).stream().filter(l -> l.startsWith(field)).findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).trim());
    } catch (IOException | RuntimeException e) {
      return java.util.Optional.empty();
    }
  }

  private static java.util.Optional<String> firstLine(String file) {
    try {
      return Files.readAllLines(Path.of(file)).stream().findFirst();
    } catch (IOException | RuntimeException e) {
      return java.util.Optional.empty();
    }
  }

  /** "24584964 kB" to "23.4 GiB". */
  private static String gib(String kb) {
    try {
      return String.format(Locale.ROOT, "%.1f GiB", Long.parseLong(kb.replace("kB", "").trim()) / (1024.0 * 1024));
    } catch (NumberFormatException e) {
      return kb;
    }
  }
}
