package io.commitlane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code ./commitlane backup ...}: each operation end to end, with its exit code. */
class BackupCliTest {
  @TempDir Path dir;

  private record Result(int code, String out, String err) {}

  private static Result run(String... args) {
    CommandLine cli = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return new Result(cli.execute(args), out.toString(), err.toString());
  }

  @Test
  void createListVerifyRestoreDeleteAndPurgeWithTheirExitCodes() throws Exception {
    Path db = dir.resolve("db");
    try (Database d = Database.open(db, DatabaseOptions.defaults().withWal(false))) {
      d.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
    }
    String backups = dir.resolve("backups").toString();
    Result r = run("backup", "create", "--db", db.toString(), "--backups", backups);
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("backup 1  complete"), r.out());
    assertEquals(0, run("backup", "create", "--db", db.toString(), "--backups", backups).code());
    r = run("backup", "list", "--backups", backups);
    assertTrue(r.out().contains("backup 1") && r.out().contains("backup 2"), r.out());
    r = run("backup", "verify", "--backups", backups, "--deep");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("backup 2: ok"), r.out());

    Path metadata = dir.resolve("backups/commitlane/1/backup.properties");
    flip(metadata);
    r = run("backup", "verify", "--backups", backups, "--id", "1");
    assertEquals(1, r.code(), r.out());
    assertTrue(r.out().contains("commitlane/1/backup.properties"), r.out());
    r = run("backup", "restore", "--backups", backups, "--id", "1", "--target", dir.resolve("r").toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("DAMAGED"), r.err());
    flip(metadata);

    assertEquals(0, run("backup", "restore", "--backups", backups, "--id", "1", "--target", dir.resolve("r").toString()).code());
    r = run("backup", "restore", "--backups", backups, "--id", "1", "--target", dir.resolve("r").toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("not empty"), r.err());
    assertEquals(0, run("backup", "restore", "--backups", backups, "--id", "2", "--target", dir.resolve("r").toString(), "--replace").code());
    try (Database d = Database.open(dir.resolve("r"))) {
      assertEquals("v", new String(d.get("k".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
    }
    assertEquals(0, run("backup", "delete", "--backups", backups, "--id", "1").code());
    assertEquals(1, run("backup", "delete", "--backups", backups, "--id", "1").code());
    r = run("backup", "purge", "--backups", backups, "--keep", "0");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("[2]"), r.out());
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
