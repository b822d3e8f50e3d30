package io.commitlane.bench.backup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.CliRun;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./commitlane backup ...}: each operation end to end, with its exit code. */
class BackupCliTest {
  @TempDir Path dir;

  @Test
  void createListVerifyRestoreDeleteAndPurgeWithTheirExitCodes() throws Exception {
    Path db = dir.resolve("db");
    try (Database d = Database.open(db, DatabaseOptions.defaults().withWal(false))) {
      d.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
    }
    String backups = dir.resolve("backups").toString();
    CliRun r = CliRun.of("backup", "create", "--db", db.toString(), "--backups", backups);
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("backup 1  complete"), r.out());
    assertEquals(0, CliRun.of("backup", "create", "--db", db.toString(), "--backups", backups).code());
    r = CliRun.of("backup", "list", "--backups", backups);
    assertTrue(r.out().contains("backup 1") && r.out().contains("backup 2"), r.out());
    r = CliRun.of("backup", "verify", "--backups", backups, "--deep");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("backup 2: ok"), r.out());

    Path metadata = dir.resolve("backups/commitlane/1/backup.properties");
    flip(metadata);
    r = CliRun.of("backup", "verify", "--backups", backups, "--id", "1");
    assertEquals(1, r.code(), r.out());
    assertTrue(r.out().contains("commitlane/1/backup.properties"), r.out());
    r = CliRun.of("backup", "restore", "--backups", backups, "--id", "1", "--target", dir.resolve("r").toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("DAMAGED"), r.err());
    flip(metadata);

    assertEquals(0, CliRun.of("backup", "restore", "--backups", backups, "--id", "1", "--target", dir.resolve("r").toString()).code());
    r = CliRun.of("backup", "restore", "--backups", backups, "--id", "1", "--target", dir.resolve("r").toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("not empty"), r.err());
    assertEquals(0, CliRun.of("backup", "restore", "--backups", backups, "--id", "2", "--target", dir.resolve("r").toString(), "--replace").code());
    try (Database d = Database.open(dir.resolve("r"))) {
      assertEquals("v", new String(d.get("k".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
    }
    assertEquals(0, CliRun.of("backup", "delete", "--backups", backups, "--id", "1").code());
    assertEquals(1, CliRun.of("backup", "delete", "--backups", backups, "--id", "1").code());
    r = CliRun.of("backup", "purge", "--backups", backups, "--keep", "0");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("[2]"), r.out());
  }

  /** A backup whose description RocksDB cannot read is listed and fails "verify every backup" with exit code 1. */
  @Test
  void verifyingEveryBackupReportsOneWhoseDescriptionIsUnreadable() throws Exception {
    Path db = dir.resolve("db");
    try (Database d = Database.open(db, DatabaseOptions.defaults().withWal(false))) {
      d.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
    }
    String backups = dir.resolve("backups").toString();
    assertEquals(0, CliRun.of("backup", "create", "--db", db.toString(), "--backups", backups).code());
    assertEquals(0, CliRun.of("backup", "create", "--db", db.toString(), "--backups", backups).code());
    java.nio.file.Files.writeString(dir.resolve("backups/meta/1"), "damaged\n");

    CliRun r = CliRun.of("backup", "list", "--backups", backups);
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("backup 1  DAMAGED") && r.out().contains("meta/1"), r.out());
    assertTrue(r.out().contains("backup 2  complete"), r.out());
    r = CliRun.of("backup", "verify", "--backups", backups);
    assertEquals(1, r.code(), r.out());
    assertTrue(r.out().contains("backup 1: DAMAGED") && r.out().contains("meta/1"), r.out());
    assertTrue(r.out().contains("backup 2: ok"), r.out());
  }

  private static void flip(Path file) throws Exception {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
      ch.read(one, 3);
      one.put(0, (byte) (one.get(0) ^ 1)).rewind();
      ch.write(one, 3);
    }
  }
}
