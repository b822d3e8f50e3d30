package io.commitlane.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.Main;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.harness.Variant;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** compare end to end: tables, JSON, charts, the README section, the default comparison, and Ctrl-C's partial report. */
class CompareCommandTest {
  @TempDir
  Path dir;

  /** Runs with System.out captured; returns the exit code and what was printed. */
  private record Run(int code, String out) {}

  private static Run capture(CommandLine cli, String... args) {
    PrintStream original = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      int code = cli.execute(args);
      return new Run(code, bytes.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(original);
    }
  }

  @Test
  void tinyCompareWritesTableJsonChartsAndReadmeSection() throws IOException {
    Path out = dir.resolve("out");
    Path section = dir.resolve("readme/section.md");
    Run run = capture(Main.commandLine(), "compare", "--runs", "1", "--warmup", "0", "--seconds", "1", "--loads", "2x4",
        "--variants", "threads,optimistic,optimistic-async", "--out", out.toString(), "--markdown-out", section.toString(),
        "--dir", dir.resolve("db").toString());

    assertEquals(0, run.code(), run.out());
    assertTrue(run.out().contains("#### 2 workers x 4 keys"), run.out());
    assertTrue(Pattern.compile("\\| commitlane threads \\| [0-9.]+k? \\[").matcher(run.out()).find(), run.out());
    assertTrue(run.out().contains("| raw OptimisticTransactionDB | "), run.out());
    assertTrue(Pattern.compile("\\| raw OptimisticTransactionDB async \\| [0-9.]+k? \\[").matcher(run.out()).find(), run.out());
    assertTrue(run.out().contains("Conflicts against the raw peer with as many commits in flight")
        && run.out().contains("- 2 workers x 4 keys: commitlane threads "), run.out());

    String json = Files.readString(out.resolve("compare.json"));
    assertTrue(json.contains("\"partial\":false"), json);
    assertTrue(json.contains("\"cellsDone\":3,\"cellsPlanned\":3"), json);
    assertEquals(3, count(json, "\"round\":1"), json);
    assertTrue(json.contains("\"variant\":\"threads\"") && json.contains("\"variant\":\"optimistic\"")
        && json.contains("\"variant\":\"optimistic-async\""), json);
    assertPositiveCommits(json);

    for (String chart : List.of("commits-per-second", "p99-latency")) {
      byte[] png = Files.readAllBytes(out.resolve(chart + ".png"));
      assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', chart + ".png is not a PNG");
      String svg = Files.readString(out.resolve(chart + ".svg"));
      assertTrue(svg.contains("<svg"), chart + ".svg is not an SVG");
    }

    String md = Files.readString(section);
    assertTrue(md.startsWith("```bash\n./commitlane compare --runs 1 "), md);
    assertTrue(md.contains("Measured ") && md.contains(Runtime.getRuntime().availableProcessors() + " cores")
        && md.contains(System.getProperty("java.version")), md);
    assertEquals(md, Files.readString(out.resolve("compare.md")));
  }

  @Test
  void defaultComparisonRunsEveryDefaultVariantOnEveryDefaultLoad() throws IOException {
    Path out = dir.resolve("out");
    Run run = capture(Main.commandLine(), "compare", "--runs", "1", "--warmup", "0", "--seconds", "0.2", "--out", out.toString());

    assertEquals(0, run.code(), run.out());
    String json = Files.readString(out.resolve("compare.json"));
    for (String load : List.of("4 workers x 64 keys", "8 workers x 1 key")) {
      assertTrue(run.out().contains("#### " + load), run.out());
    }
    for (String variant : CompareCommand.DEFAULT_VARIANTS.split(",")) {
      assertEquals(2, count(json, "\"variant\":\"" + variant + "\""), variant + " in " + json);
    }
    int cells = 2 * CompareCommand.DEFAULT_VARIANTS.split(",").length;
    assertTrue(json.contains("\"cellsDone\":" + cells + ",\"cellsPlanned\":" + cells), json);
    assertPositiveCommits(json);
  }

  @Test
  void readFirstMakesEveryVariantReadItsKeysBeforeWritingThem() throws IOException {
    Path out = dir.resolve("out");
    Run run = capture(Main.commandLine(), "compare", "--runs", "1", "--warmup", "0", "--seconds", "0.3", "--loads", "2x4", "--read-first",
        "--variants", "threads,commit-sync,optimistic,optimistic-async,write-batch,lmdb", "--out", out.toString());

    assertEquals(0, run.code(), run.out());
    assertTrue(run.out().contains("each commit reads its keys first"), run.out());
    String json = Files.readString(out.resolve("compare.json"));
    assertTrue(json.contains("\"readFirst\":true"), json);
    assertTrue(json.contains("\"cellsDone\":6,\"cellsPlanned\":6"), json);
    assertPositiveCommits(json);
  }

  @Test
  void aStopRequestReportsWhatWasMeasuredMarkedPartial() throws IOException {
    Path out = dir.resolve("out");
    CompareCommand compare = new CompareCommand();
    compare.listener = new Comparison.CellListener() {
      @Override
      public void cellFinished(int index, Load load, Variant variant, CompareSample sample) {
        StopSignal.request(); // what Ctrl-C's shutdown hook does, at a known point: after the first measurement
      }
    };
    Run run = capture(new CommandLine(compare), "--runs", "2", "--warmup", "0", "--seconds", "0.2", "--loads", "1x1",
        "--variants", "write-batch,optimistic", "--out", out.toString());

    assertEquals(CompareCommand.STOPPED, run.code(), run.out());
    assertTrue(run.out().contains("PARTIAL: stopped after 1 of 4 measurements"), run.out());
    assertTrue(run.out().contains("| raw OptimisticTransactionDB | not measured |"), run.out());
    String json = Files.readString(out.resolve("compare.json"));
    assertTrue(json.contains("\"partial\":true") && json.contains("\"cellsDone\":1,\"cellsPlanned\":4"), json);
    assertTrue(Files.exists(out.resolve("commits-per-second.png")) && Files.exists(out.resolve("p99-latency.svg")));
    assertTrue(!StopSignal.requested(), "the next command starts unstopped");
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  /** Every run's commits/s is a positive number: each variant did commit. */
  private static void assertPositiveCommits(String json) {
    Matcher m = Pattern.compile("\"round\":\\d+,\"commits\":(\\d+)").matcher(json);
    int runs = 0;
    while (m.find()) {
      assertTrue(Long.parseLong(m.group(1)) > 0, json);
      runs++;
    }
    assertTrue(runs > 0, json);
  }
}
