package io.commitlane.bench.strain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.CliRun;
import io.commitlane.bench.dataset.BulkDataset;
import io.commitlane.bench.dataset.DatasetShape;
import io.commitlane.bench.dataset.LegDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** strain end to end at a few MiB and half-second legs: every leg reported, the files written, the database kept, reused and removed. */
class StrainCommandTest {
  @TempDir
  Path dir;

  @Test
  void everyLegIsReportedAndTheKeptDatabaseIsReusedThenRemoved() throws Exception {
    Path data = dir.resolve("data");
    Path out = dir.resolve("out");
    CliRun first = CliRun.of("strain", "--dir", data.toString(), "--size-gb", "0.005", "--leg-seconds", "0.5", "--warmup", "0.1", "--runs", "1",
        "--workers", "2", "--concurrency", "2", "--keep", "--out", out.toString());
    assertEquals(0, first.code(), first.out());
    assertTrue(first.out().contains("built in"), first.out());
    for (String leg : List.of("commitlane threads", "commitlane commitSync", "commitlane legacy", "raw OptimisticTransactionDB")) {
      assertTrue(Pattern.compile("\\| " + leg + " \\| [0-9.]+k? \\[").matcher(first.out()).find(), leg + " in:\n" + first.out());
    }
    assertTrue(first.out().contains("- commitlane threads: ") && first.out().contains("legacy's commits/s")
        && first.out().contains("probe p99"), first.out());

    List<String> csv = Files.readAllLines(out.resolve("strain.csv"));
    assertEquals(5, csv.size(), "a header and a row per leg: " + csv);
    for (String row : csv.subList(1, csv.size())) {
      String[] cells = row.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)");
      assertEquals(19, cells.length, row);
      assertTrue(Double.parseDouble(cells[3]) > 0, "commits/s: " + row);
      assertTrue(Long.parseLong(cells[12]) > 0, "probes: " + row);
      assertTrue(Integer.parseInt(cells[17]) >= Integer.parseInt(cells[18]) && Long.parseLong(cells[15]) >= Long.parseLong(cells[16]),
          "max >= end: " + row);
    }
    String json = Files.readString(out.resolve("strain.json"));
    assertTrue(json.contains("\"partial\":false") && json.contains("\"reused\":false"), json);
    assertEquals(4, CliRun.occurrences(json, "\"probeP99Micros\":"), json);
    assertTrue(Files.readString(out.resolve("strain.md")).startsWith("```bash\n./commitlane strain --dir "));
    assertTrue(Files.exists(data.resolve(DatasetShape.ofValueBytes((long) (0.005 * (1L << 30)), 1024, 8192).name()).resolve(BulkDataset.MARKER)),
        "--keep: the database stays");
    assertFalse(Files.exists(LegDatabase.copies(data)), "the legs' copies are gone");

    CliRun second = CliRun.of("strain", "--dir", data.toString(), "--size-gb", "0.005", "--leg-seconds", "0.3", "--warmup", "0", "--runs", "1",
        "--workers", "1", "--modes", "threads", "--out", dir.resolve("out2").toString());
    assertEquals(0, second.code(), second.out());
    assertTrue(second.out().contains("reusing"), second.out());
    assertFalse(second.out().contains("commitlane legacy"), "only the modes asked for: " + second.out());
    assertTrue(second.out().contains("| raw OptimisticTransactionDB |") && second.out().contains("| commitlane commitSync |"), second.out());
    try (var left = Files.list(data)) {
      assertEquals(List.of(), left.toList(), "without --keep the database is removed; --dir itself stays, as it was there before this run");
    }
  }
}
