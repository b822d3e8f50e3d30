package io.commitlane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DbStatsCommandTest {
  @TempDir Path dir;

  @Test
  void printsTheHealthAndRocksDbsNumbersOfAHealthyDatabase() {
    Path path = dir.resolve("orders");
    try (Database db = Database.open(path, DatabaseOptions.defaults().withWal(false).withStores("users"))) {
      db.put("k".getBytes(StandardCharsets.UTF_8), new byte[2000]);
      db.flush();
    }
    CliRun r = CliRun.of("db", "stats", path.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("health                OK"), r.out());
    assertTrue(r.out().contains("users"), r.out());
    for (String line : new String[] {"pending compaction", "memtables", "live SST files", "in level 0", "index and filters", "block cache", "write stall",
        "writes                not delayed", "running               0 compactions"}) {
      assertTrue(r.out().contains(line), line + " in " + r.out());
    }
  }

  @Test
  void aDatabaseItCannotOpenExitsOne() {
    Path path = dir.resolve("busy");
    // Open here with other options: the command's open of the same path is refused.
    try (Database db = Database.open(path, DatabaseOptions.defaults().withWal(false))) {
      CliRun r = CliRun.of("db", "stats", path.toString());
      assertEquals(1, r.code(), r.out());
      assertTrue(r.err().contains("cannot open"), r.err());
    }
  }

  @Test
  void humanSizes() {
    assertEquals("512 B", DbStatsCommand.bytes(512));
    assertEquals("1.5 KiB", DbStatsCommand.bytes(1536));
    assertEquals("64.0 MiB", DbStatsCommand.bytes(64L << 20));
  }
}
