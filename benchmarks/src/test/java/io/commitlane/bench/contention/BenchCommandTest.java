package io.commitlane.bench.contention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bench scenarios run, report what they measured and end with one JSON line. */
class BenchCommandTest {
  @TempDir
  Path dir;

  private String run(String... args) {
    PrintStream original = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = Main.run(args);
    } finally {
      System.setOut(original);
    }
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, out);
    return out;
  }

  private static String jsonLine(String out) {
    List<String> lines = out.lines().toList();
    String last = lines.get(lines.size() - 1);
    assertTrue(last.startsWith("{\"scenario\":") && last.endsWith("}"), out);
    return last;
  }

  @Test
  void jfrWritesARecordingWithTheCommitlaneEvents() throws Exception {
    Path file = dir.resolve("bench.jfr");
    String out = run("bench", "--scenario", "one-db", "--workers", "2", "--keys", "4", "--warmup", "0", "--seconds", "0.3",
        "--log", "--durability", "fsync", "--jfr", file.toString(), "--dir", dir.resolve("data").toString());
    jsonLine(out);
    java.util.Set<String> names = new java.util.HashSet<>();
    for (jdk.jfr.consumer.RecordedEvent e : jdk.jfr.consumer.RecordingFile.readAllEvents(file)) {
      names.add(e.getEventType().getName());
    }
    for (String name : List.of("io.commitlane.CommitAdmitted", "io.commitlane.CommitDequeued", "io.commitlane.CommitValidated",
        "io.commitlane.LogAppended", "io.commitlane.CommitWritten", "io.commitlane.CommitAcknowledged",
        "io.commitlane.ExecutorStarted", "io.commitlane.LogSynced",
        "jdk.JVMInformation")) { // a JDK default event written at the recording's start, whatever its length
      assertTrue(names.contains(name), name + " in the recording; got " + names.stream().filter(n -> n.startsWith("io.")).toList());
    }
  }

  @Test
  void mixedSyncReportsBothGroupsAndCpuPerCommit() {
    String out = run("bench", "--scenario", "mixed-sync", "--warmup", "0", "--seconds", "0.5", "--keys", "4", "--dir", dir.toString());
    String json = jsonLine(out);
    assertTrue(json.contains("\"scenario\":\"mixed-sync\"") && json.contains("\"workers\":2") && json.contains("\"syncWorkers\":2"), json);
    assertTrue(json.contains("\"groups\":{\"async\":{") && json.contains("\"commitSync\":{"), json);
    assertTrue(json.contains("\"cpuMicrosPerCommit\":"), json);
    assertTrue(positive(json, "commitsPerSecond") >= 3, json); // the total and both groups committed
    assertTrue(out.contains("latency µs p50"), out);
  }

  @Test
  void conflictScenarioHasRealConflictsAndLosesNoUpdate() {
    String out = run("bench", "--scenario", "conflict", "--warmup", "0", "--seconds", "0.5", "--key-space", "16", "--keys", "4");
    String json = jsonLine(out);
    assertTrue(json.contains("\"lostUpdates\":0"), json);
    Matcher conflicts = Pattern.compile("\"conflicts\":(\\d+)").matcher(json);
    assertTrue(conflicts.find() && Long.parseLong(conflicts.group(1)) > 0, "16 hot keys, 4 workers: some commits must conflict: " + json);
  }

  @Test
  void txlogScenarioAppendsRecords() {
    String json = jsonLine(run("bench", "--scenario", "txlog", "--warmup", "0", "--seconds", "0.3", "--workers", "2", "--durability", "process"));
    assertTrue(positive(json, "commitsPerSecond") == 1, json);
  }

  private static int positive(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":([0-9.]+)").matcher(json);
    int n = 0;
    while (m.find()) {
      assertTrue(Double.parseDouble(m.group(1)) > 0, field + " in " + json);
      n++;
    }
    return n;
  }
}
