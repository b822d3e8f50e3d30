package io.commitlane.storage.internal.files;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.Database;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;

/**
 * The manifest reader against what RocksDB writes beyond commitlane's own use of it: blob files,
 * compactions that delete table files, a column family dropped: a database written that way is
 * destroyed completely.
 */
class RocksDbManifestTest {
  static {
    RocksDB.loadLibrary();
  }

  @TempDir
  Path dir;

  @Test
  void blobFilesCompactionsAndDroppedStoresAreAllRecognised() throws Exception {
    Path db = dir.resolve("blobs");
    try (ColumnFamilyOptions cf = new ColumnFamilyOptions().setEnableBlobFiles(true).setMinBlobSize(16);
        DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        FlushOptions wait = new FlushOptions().setWaitForFlush(true)) {
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      List<ColumnFamilyDescriptor> descriptors = List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cf),
          new ColumnFamilyDescriptor("gone".getBytes(StandardCharsets.UTF_8), cf));
      try (RocksDB rocks = RocksDB.open(options, db.toString(), descriptors, handles)) {
        for (int round = 0; round < 5; round++) {
          for (int i = 0; i < 50; i++) {
            rocks.put(handles.get(0), ("k" + i).getBytes(StandardCharsets.UTF_8), ("a value long enough for a blob " + round).getBytes(StandardCharsets.UTF_8));
            rocks.put(handles.get(1), ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + round).getBytes(StandardCharsets.UTF_8));
          }
          rocks.flush(wait, handles);
        }
        rocks.compactRange(handles.get(0));
        rocks.dropColumnFamily(handles.get(1));
        rocks.put(handles.get(0), "unflushed".getBytes(StandardCharsets.UTF_8), "in the WAL only".getBytes(StandardCharsets.UTF_8));
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
    try (var files = Files.list(db)) {
      assertTrue(files.anyMatch(p -> p.getFileName().toString().endsWith(".blob")), "the database holds blob files");
    }
    RocksDbManifest manifest = RocksDbManifest.read(db);
    assertFalse(manifest.blobFiles.isEmpty());
    Database.destroy(db);
    assertFalse(Files.exists(db), () -> "left behind: " + String.join(", ", db.toFile().list()));
  }
}
