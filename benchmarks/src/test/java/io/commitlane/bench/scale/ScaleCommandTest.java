package io.commitlane.bench.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.CliRun;
import io.commitlane.bench.dataset.BulkDataset;
import io.commitlane.bench.dataset.LegDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** scale end to end on databases of a few thousand keys: every database and committer reported, the files and chart written, databases kept and reused. */
class ScaleCommandTest {
  @TempDir
  Path dir;

  @Test
  void everyDatabaseAndCommitterIsReportedAndTheDatabasesAreKeptForTheNextRun() throws Exception {
    Path data = dir.resolve("data");
    Path out = dir.resolve("out");
    CliRun first = CliRun.of("scale", "--dir", data.toString(), "--keys", "5K,10K", "--value-sizes", "100,400", "--value-size-keys", "5K", "--runs", "1",
        "--warmup", "0", "--seconds", "0.3", "--workers", "2", "--concurrency", "2", "--out", out.toString());
    assertEquals(0, first.code(), first.out());
    for (String cell : List.of("5K keys x 100 B", "10K keys x 100 B", "5K keys x 400 B")) {
      for (String committer : List.of("commitlane threads", "raw OptimisticTransactionDB")) {
        assertTrue(Pattern.compile("\\| " + cell + " \\| " + committer + " \\| [0-9.]+k? \\[").matcher(first.out()).find(),
            cell + ", " + committer + " in:\n" + first.out());
      }
    }
    List<String> csv = Files.readAllLines(out.resolve("scale.csv"));
    assertEquals(7, csv.size(), "a header and a row per leg (5K x 100 B once, though both lists name it): " + csv);
    for (String row : csv.subList(1, csv.size())) {
      String[] cells = row.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)");
      assertEquals(18, cells.length, row);
      assertTrue(Double.parseDouble(cells[6]) > 0 && Double.parseDouble(cells[12]) > 0, "commits/s and CPU per commit: " + row);
    }
    assertTrue(Files.readString(out.resolve("scale.json")).contains("\"partial\":false"));
    assertTrue(Files.size(out.resolve("scale-ratios.png")) > 0 && Files.size(out.resolve("scale-ratios.svg")) > 0);
    for (String name : List.of("5K-keys-100B", "10K-keys-100B", "5K-keys-400B")) {
      assertTrue(Files.exists(data.resolve(name).resolve(BulkDataset.MARKER)), name + " kept");
    }
    assertFalse(Files.exists(LegDatabase.copies(data)), "the legs' copies are gone");

    CliRun second = CliRun.of("scale", "--dir", data.toString(), "--keys", "5K", "--value-sizes", "100", "--value-size-keys", "5K", "--runs", "1",
        "--warmup", "0", "--seconds", "0.2", "--workers", "1", "--remove", "--out", dir.resolve("out2").toString());
    assertEquals(0, second.code(), second.out());
    assertTrue(second.out().contains("reusing") && !second.out().contains("built in"), second.out());
    assertFalse(Files.exists(data.resolve("5K-keys-100B")), "--remove");
    assertTrue(Files.exists(data.resolve("10K-keys-100B")), "only the databases of this run are removed");
  }
}
