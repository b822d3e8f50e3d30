package io.commitlane.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.KeyRange;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bulk-built datasets: built once, reused, copied per leg. */
class BulkDatasetTest {
  private static final DatasetShape SHAPE = new DatasetShape(3_000, 100, 400);

  @TempDir
  Path dir;

  private final ByteArrayOutputStream log = new ByteArrayOutputStream();

  private BulkDataset ensure(Path where, DatasetShape shape) throws Exception {
    return BulkDataset.ensure(where, shape, CommitlaneSettings.defaults(), new PrintStream(log, true, StandardCharsets.UTF_8));
  }

  private static Database open(Path p) {
    return Database.open(p, DatabaseOptions.defaults().withWal(false));
  }

  @Test
  void holdsEveryKeyWithItsSizeIsReusedAndCopiesLeaveItAsItWas() throws Exception {
    BulkDataset built = ensure(dir.resolve("data"), SHAPE);
    assertFalse(built.reused());
    assertTrue(built.buildSeconds() > 0);
    assertTrue(built.tableBytes() >= SHAPE.valueBytes(), "incompressible values: the table files hold at least their bytes");

    Path copy = built.cloneTo(dir.resolve("leg-1"));
    byte[] before;
    try (Database db = open(copy)) {
      assertEquals(SHAPE.keys(), db.count(KeyRange.all()));
      for (long k : new long[] {0, 1, 1_499, 2_999}) {
        assertEquals(SHAPE.valueSize(k), db.get(ReadKeys.key(k)).length, "key " + k);
      }
      before = db.get(ReadKeys.key(7));
      db.put(ReadKeys.key(7), "changed".getBytes(StandardCharsets.UTF_8));
      db.flush();
      db.compact(KeyRange.all(), true); // rewrites every table file of the copy
    }

    BulkDataset again = ensure(dir.resolve("data"), SHAPE);
    assertTrue(again.reused(), log.toString(StandardCharsets.UTF_8));
    try (Database db = open(again.cloneTo(dir.resolve("leg-2")))) {
      assertArrayEquals(before, db.get(ReadKeys.key(7)), "the copy's writes and compaction left the dataset as built");
    }
    try (Database db = open(ensure(dir.resolve("other"), SHAPE).path())) {
      assertArrayEquals(before, db.get(ReadKeys.key(7)), "the same shape is the same bytes");
    }
  }

  @Test
  void anotherShapeIsReplacedAndADirectoryOfSomethingElseIsRefused() throws Exception {
    ensure(dir.resolve("data"), SHAPE);
    DatasetShape bigger = new DatasetShape(4_000, 100, 400);
    BulkDataset replaced = ensure(dir.resolve("data"), bigger);
    assertFalse(replaced.reused());
    try (Database db = open(replaced.cloneTo(dir.resolve("leg")))) {
      assertEquals(4_000, db.count(KeyRange.all()));
    }

    Path foreign = Files.createDirectories(dir.resolve("foreign"));
    Files.writeString(foreign.resolve("notes.txt"), "mine");
    Checks.UsageException e = assertThrows(Checks.UsageException.class, () -> ensure(foreign, SHAPE));
    assertTrue(e.getMessage().contains("--dir") && e.getMessage().contains(BulkDataset.MARKER), e.getMessage());
    assertTrue(Files.exists(foreign.resolve("notes.txt")), "never deleted");
  }
}
