package io.commitlane.bench.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.CliRun;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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

  /** Records a log holds past its flushed position that RocksDB lacks (after a crash, or in a restored backup): counted, not applied. */
  @Test
  void printsHowManyLogRecordsANormalOpenWouldReplay() {
    Path path = dir.resolve("orders");
    try (Database db = Database.open(path, DatabaseOptions.defaults().withWal(false))) {
      db.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
    }
    CliRun r = CliRun.of("db", "stats", path.toString());
    assertTrue(r.out().contains("log replay            no transaction logs"), r.out());
    try (TransactionLog log = TransactionLog.open(path.resolve("txlog/orders"), LogSettings.defaults())) {
      for (int i = 0; i < 3; i++) {
        log.finish(log.append(i, i, List.of(ByteBuffer.wrap(new byte[] {1})), ByteBuffer.wrap(new byte[] {0})), () -> 0);
      }
    }
    r = CliRun.of("db", "stats", path.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("log replay            3 log records not applied here (orders 3): a normal open replays them"), r.out());
    assertEquals("nothing to replay (audit 0, orders 0)", DbStatsCommand.replay(new java.util.TreeMap<>(Map.of("orders", 0L, "audit", 0L))));
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
