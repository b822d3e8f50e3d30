package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** What opening refuses: a file, a directory of other files, another program's RocksDB, a database another process holds. */
class DatabaseDirectoryTest {
  @TempDir Path dir;

  @Test
  void aFileIsNotADatabase() throws Exception {
    Path file = Files.writeString(dir.resolve("notes.txt"), "hello");
    NotADatabaseException e = assertThrows(NotADatabaseException.class, () -> Database.open(file));
    assertTrue(e.getMessage().contains("it is a file"), e.getMessage());
    assertEquals("hello", Files.readString(file), "untouched");
  }

  @Test
  void aDirectoryOfOtherFilesIsRefusedAndAnEmptyOneOpens() throws Exception {
    Path photos = Files.createDirectories(dir.resolve("photos"));
    Files.writeString(photos.resolve("cat.jpg"), "not a database");
    NotADatabaseException e = assertThrows(NotADatabaseException.class, () -> Database.open(photos));
    assertTrue(e.getMessage().contains("it holds other files (cat.jpg)"), e.getMessage());
    assertEquals(List.of("cat.jpg"), list(photos), "nothing was written there");

    Path empty = Files.createDirectories(dir.resolve("empty"));
    Database.open(empty).close();
    Path logsOnly = Files.createDirectories(dir.resolve("logs-only").resolve("txlog"));
    Database.open(logsOnly.getParent()).close(); // commitlane's own transaction logs, without RocksDB's files
    Path cutShort = Files.createDirectories(dir.resolve("cut-short")); // a creation that crashed before CURRENT
    Files.writeString(cutShort.resolve("LOCK"), "");
    Files.writeString(cutShort.resolve("IDENTITY"), "0b1c8d2e-0000-4000-8000-000000000000");
    Files.writeString(cutShort.resolve("MANIFEST-000001"), "");
    Database.open(cutShort).close();
  }

  @Test
  void aRocksDbDatabaseAnotherProgramMadeIsRefused() throws Exception {
    Path foreign = dir.resolve("foreign");
    try (Options o = new Options().setCreateIfMissing(true); RocksDB raw = RocksDB.open(o, foreign.toString())) {
      raw.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
    }
    NotADatabaseException e = assertThrows(NotADatabaseException.class, () -> Database.open(foreign));
    assertTrue(e.getMessage().contains("commitlane did not create"), e.getMessage());
    assertThrows(NotADatabaseException.class, () -> Database.openReadOnly(foreign));
  }

  @Test
  void aDatabaseWhoseLockAnotherOpenHoldsIsInUse() throws Exception {
    Path path = dir.resolve("held");
    Database.open(path).close();
    // A RocksDB handle outside commitlane's registry, as another process's would be.
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (Options probe = new Options()) {
      for (byte[] cf : RocksDB.listColumnFamilies(probe, path.toString())) {
        descriptors.add(new ColumnFamilyDescriptor(cf));
      }
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions o = new DBOptions(); RocksDB other = RocksDB.open(o, path.toString(), descriptors, handles)) {
      PathInUseException e = assertThrows(PathInUseException.class, () -> Database.open(path));
      assertTrue(e.getMessage().contains("open in another process"), e.getMessage());
      handles.forEach(ColumnFamilyHandle::close);
    }
    Database.open(path).close(); // free again
  }

  private static List<String> list(Path d) throws Exception {
    try (var s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
