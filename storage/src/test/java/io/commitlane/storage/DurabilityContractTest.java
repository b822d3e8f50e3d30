package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.internal.files.DropIntents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What storage promises about the bytes it is given and the files it owns: writes are copies,
 * a transaction log cannot be named where none is written, destroy deletes only a database's own
 * files, and a close whose final flush fails says so.
 */
class DurabilityContractTest {
  @TempDir Path dir;

  @Test
  void aPutKeepsWhatItWasGivenNotTheCallersArrays() {
    try (Database db = Database.open(dir)) {
      byte[] key = of("k");
      byte[] value = of("before");
      Transaction t = db.begin().put(key, value);
      value[0] = 'X';
      key[0] = 'X';
      t.commitSync();
      assertEquals("before", str(db.get(of("k"))));

      byte[] batchValue = of("batch");
      Batch b = Batch.create().put(db.defaultStore(), of("b"), batchValue);
      batchValue[0] = 'X';
      db.write(b);
      assertEquals("batch", str(db.get(of("b"))));

      byte[] direct = of("direct");
      db.put(of("d"), direct);
      assertEquals("direct", str(db.get(of("d"))));
    }
  }

  @Test
  void anInvalidLogNameIsRefusedWhereItIsNamedNotAtCommit() {
    try (Database db = Database.open(dir)) {
      Transaction t = db.begin();
      for (String bad : new String[] {"", ".hidden", "a/b", "x".repeat(129)}) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.useLog(bad));
        assertTrue(e.getMessage().contains("log name \"" + bad + "\" is invalid"), e.getMessage());
      }
    }
  }

  @Test
  void useLogWithoutLogWiringIsRefusedAtOnceNotDroppedAtCommit() {
    try (Database db = Database.open(dir)) {
      Transaction t = db.begin();
      LogNotAvailableException e = assertThrows(LogNotAvailableException.class, () -> t.useLog("orders"));
      assertTrue(e.getMessage().contains("orders") && e.getMessage().contains("Commitlane.get(system).open"), e.getMessage());
      assertFalse(e.isRetryable());
      // A hook that writes logs makes it available.
      try (Database.Registration r = db.addCommitHook(new CommitHook() {
        @Override
        public boolean writesLogs() {
          return true;
        }
      })) {
        db.begin().useLog("orders").abort();
      }
    }
  }

  @Test
  void destroyDeletesTheDatabaseAndWhatCommitlaneKeepsButNothingElse() throws IOException {
    Path db = dir.resolve("db");
    try (Database d = Database.open(db)) {
      d.put(of("k"), of("v"));
      d.store("users");
      d.dropStore("users").toCompletableFuture().join();
    }
    Files.createDirectories(db.resolve("txlog/orders"));
    Files.writeString(db.resolve("txlog/orders/00000000000000000000.txlog"), "segment");
    Files.writeString(db.resolve("txlog/orders/flushed-position"), "position");
    Files.writeString(db.resolve("notes.txt"), "the user's own file");
    Files.createDirectories(db.resolve("backups"));
    Files.writeString(db.resolve("backups/b1"), "the user's own directory");
    Files.writeString(db.resolve("txlog/orders/README"), "the user's file inside a log directory");

    Database.destroy(db);

    assertTrue(Files.exists(db.resolve("notes.txt")));
    assertTrue(Files.exists(db.resolve("backups/b1")));
    assertTrue(Files.exists(db.resolve("txlog/orders/README")));
    assertFalse(Files.exists(db.resolve("txlog/orders/00000000000000000000.txlog")));
    assertFalse(Files.exists(db.resolve("txlog/orders/flushed-position")));
    assertFalse(Files.exists(db.resolve("CURRENT")));
    assertFalse(Files.exists(db.resolve(DropIntents.DIRECTORY)));
    try (var files = Files.list(db)) {
      assertEquals(List.of("backups", "notes.txt", "txlog"), files.map(p -> p.getFileName().toString()).sorted().toList());
    }
  }

  @Test
  void destroyRemovesAFullyOwnedDirectory() {
    Path db = dir.resolve("db");
    try (Database d = Database.open(db)) {
      d.put(of("k"), of("v"));
    }
    Database.destroy(db);
    assertFalse(Files.exists(db));
    Database.destroy(db); // a missing path is a no-op
  }

  @Test
  void destroyRefusesADirectoryThatIsNoDatabase() throws IOException {
    Path home = dir.resolve("home");
    Files.createDirectories(home.resolve("photos"));
    Files.writeString(home.resolve("letter.txt"), "dear");
    NotADatabaseException e = assertThrows(NotADatabaseException.class, () -> Database.destroy(home));
    assertTrue(e.getMessage().contains("nothing was deleted"), e.getMessage());
    assertTrue(Files.exists(home.resolve("letter.txt")));
    assertTrue(Files.exists(home.resolve("photos")));
    Path file = Files.writeString(dir.resolve("file"), "x");
    assertThrows(NotADatabaseException.class, () -> Database.destroy(file));
    assertTrue(Files.exists(file));
  }

  /**
   * Files of the user's whose names RocksDB also uses stay: only what the database's manifest
   * names, or what RocksDB's own content proves it wrote, goes.
   */
  @Test
  void destroyLeavesTheUsersFilesThatOnlyLookLikeRocksDbs() throws IOException {
    Path db = dir.resolve("db");
    try (Database d = Database.open(db, DatabaseOptions.defaults().withWal(true).withStores("users"))) {
      d.put(of("k"), of("v"));
      d.flush();
      d.put(d.store("users"), of("u"), of("w"));
    }
    List<String> decoys = List.of("000999.log", "000998.sst", "000997.blob", "MANIFEST-000999", "OPTIONS-000999", "LOG.old.1",
        "000996.dbtmp");
    for (String decoy : decoys) {
      Files.writeString(db.resolve(decoy), "the user's own " + decoy);
    }
    Files.createFile(db.resolve("000001.log")); // empty, and older than any log the database would replay

    Database.destroy(db);

    try (var files = Files.list(db)) {
      List<String> left = files.map(p -> p.getFileName().toString()).sorted().toList();
      List<String> expected = new java.util.ArrayList<>(decoys);
      expected.add("000001.log");
      assertEquals(expected.stream().sorted().toList(), left);
    }
    for (String decoy : decoys) {
      assertEquals("the user's own " + decoy, Files.readString(db.resolve(decoy)));
    }
  }

  /** A directory with RocksDB's file names but no database behind them is refused, and nothing in it is touched. */
  @Test
  void destroyRefusesADirectoryThatOnlyLooksLikeADatabase() throws IOException {
    Path home = dir.resolve("look-alike");
    Files.createDirectories(home);
    Files.writeString(home.resolve("CURRENT"), "the user's notes, not a pointer to a manifest");
    Files.writeString(home.resolve("LOG"), "the user's log");
    Files.writeString(home.resolve("000999.log"), "the user's log too");
    Files.createFile(home.resolve("LOCK"));
    assertRefusedAndUntouched(home);

    Files.writeString(home.resolve("CURRENT"), "MANIFEST-000005\n"); // names a manifest that is not there
    assertRefusedAndUntouched(home);

    Files.writeString(home.resolve("MANIFEST-000005"), "not a manifest either");
    assertRefusedAndUntouched(home);
  }

  private static void assertRefusedAndUntouched(Path home) throws IOException {
    java.util.Map<String, String> before = contents(home);
    NotADatabaseException e = assertThrows(NotADatabaseException.class, () -> Database.destroy(home));
    assertTrue(e.getMessage().contains("nothing was deleted"), e.getMessage());
    assertEquals(before, contents(home));
  }

  private static java.util.Map<String, String> contents(Path dir) throws IOException {
    java.util.Map<String, String> out = new java.util.TreeMap<>();
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) {
        out.put(p.getFileName().toString(), Files.readString(p));
      }
    }
    return out;
  }

  /** Every file RocksDB wrote is recognised, whatever it holds: stores, flushed tables, write-ahead logs, an IDENTITY. */
  @Test
  void destroyRemovesEveryFileOfADatabaseThatWasWrittenFlushedAndReopened() throws IOException {
    Path db = dir.resolve("busy");
    for (int round = 0; round < 3; round++) {
      try (Database d = Database.open(db, DatabaseOptions.defaults().withWal(round != 1).withStores("a", "b"))) {
        for (int i = 0; i < 200; i++) {
          d.put(d.store(i % 2 == 0 ? "a" : "b"), of("k" + round + "-" + i), of("v" + i));
        }
        if (round != 2) {
          d.flush();
        }
      }
    }
    Database.destroy(db);
    assertFalse(Files.exists(db), () -> "left behind: " + db.toFile().list().length);
  }

  @Test
  void storeNamesReservedForCommitlaneAreRefused() {
    try (Database db = Database.open(dir)) {
      assertThrows(InvalidStoreNameException.class, () -> db.store("__commitlane_internal"));
      assertFalse(db.storeNames().contains("__commitlane_internal"), "commitlane's own records are not a store");
    }
  }

  /**
   * The WAL off and no log: acknowledged writes live in the memtable until a flush. When the disk
   * is full that last flush fails, and close must say so rather than return as if all were kept.
   * On a real 8 MiB tmpfs (skipped where mounting is not allowed).
   */
  @Test
  void aCloseWhoseFinalFlushFailsThrows() throws Exception {
    Path mount = Files.createDirectories(dir.resolve("small-disk"));
    assumeTrue(mountTmpfs(mount, "8m"), "cannot mount a tmpfs here");
    try {
      Path path = mount.resolve("db");
      Database db = Database.open(path, DatabaseOptions.defaults().withWal(false));
      // Fill the disk, then give RocksDB more in memory than the disk can take.
      Path filler = mount.resolve("filler");
      fill(filler);
      byte[] value = new byte[64 << 10];
      for (int i = 0; i < 100; i++) {
        db.put(of("k" + i), value);
      }
      StorageException e = assertThrows(StorageException.class, db::close);
      assertTrue(e.getMessage().contains("final flush"), e.getMessage());
      assertFalse(Database.isOpen(path), "released anyway");
      Files.delete(filler);
    } finally {
      unmount(mount);
    }
  }

  private static void fill(Path file) throws IOException {
    byte[] chunk = new byte[64 << 10];
    try (var out = Files.newOutputStream(file)) {
      while (true) {
        out.write(chunk);
      }
    } catch (IOException full) {
      // ENOSPC: the disk is full now
    }
  }

  static boolean mountTmpfs(Path at, String size) throws InterruptedException {
    try {
      Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", at.toString())
          .redirectErrorStream(true).start();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  static void unmount(Path at) throws Exception {
    new ProcessBuilder("umount", at.toString()).redirectErrorStream(true).start().waitFor(30, TimeUnit.SECONDS);
  }
}
