package io.commitlane.storage;

import io.commitlane.storage.BackupRefusedException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.rocksdb.BackupEngine;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RestoreOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Verifies a backup against its manifest: every file's size and SHA-256, the manifest's own
 * checksum, that RocksDB's description of the backup names no file the manifest lacks, and that
 * no path leaves the backup directory. Deep verification also restores the backup into a
 * temporary directory and reads every key of every store with block checksums on.
 */
final class BackupVerifier {
  private BackupVerifier() {}

  static BackupInfo verify(BackupStore store, int id, boolean deep, BackupProgress progress) {
    BackupLayout layout = store.layout();
    try {
      Path dir = layout.backup(id);
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        if (!Files.isRegularFile(layout.root.resolve("meta").resolve(Integer.toString(id)))) {
          throw new BackupRefusedException(Reason.NO_SUCH_BACKUP, "there is no backup " + id + " in " + layout.root
              + "; list them to see which there are");
        }
        throw new BackupCorruptException(id, layout.root.relativize(dir), "is missing: the backup was interrupted; delete it");
      }
      List<BackupManifest.Entry> entries = BackupManifest.read(layout, id);
      Set<String> listed = new HashSet<>();
      long total = 0;
      for (BackupManifest.Entry e : entries) {
        listed.add(e.path());
        total += e.size();
      }
      for (String rocks : BackupManifest.rocksDbFiles(layout, id)) {
        if (!listed.contains(rocks)) {
          throw new BackupCorruptException(id, Path.of(rocks), "is named by RocksDB's description of the backup but not by its manifest");
        }
      }
      long done = 0;
      for (BackupManifest.Entry e : entries) {
        Path file = layout.inside(id, e.path());
        Path rel = Path.of(e.path());
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
          throw new BackupCorruptException(id, rel, "is missing");
        }
        if (Files.size(file) != e.size()) {
          throw new BackupCorruptException(id, rel, "has " + Files.size(file) + " bytes, not the " + e.size() + " recorded");
        }
        if (!BackupManifest.sha256(file).equals(e.sha256())) {
          throw new BackupCorruptException(id, rel, "does not match its recorded SHA-256 (a changed or damaged byte)");
        }
        done += e.size();
        progress.progress("verify", done, total);
      }
      BackupInfo info = BackupMetadata.read(dir.resolve(BackupLayout.METADATA), true);
      if (info.formatVersion() > BackupMetadata.FORMAT_VERSION) {
        throw new BackupRefusedException(Reason.NEWER_FORMAT, "backup " + id + " was written in commitlane backup format "
            + info.formatVersion() + ", newer than this version reads (" + BackupMetadata.FORMAT_VERSION + "); use a newer commitlane");
      }
      if (deep) {
        deepVerify(store, id);
      }
      return info;
    } catch (IOException e) {
      throw new BackupException("cannot verify backup " + id + " in " + layout.root + ": " + e, e);
    }
  }

  /** Restores into {@code commitlane/verify-<id>} and reads everything there; removes it after. */
  private static void deepVerify(BackupStore store, int id) throws IOException {
    Path temp = store.layout().ours().resolve("verify-" + id);
    SideFiles.deleteTree(temp);
    try (BackupEngine engine = store.engine(); RestoreOptions ro = new RestoreOptions(false)) {
      engine.restoreDbFromBackup(id, temp.toString(), temp.toString(), ro);
      readEverything(temp);
    } catch (RocksDBException e) {
      throw new BackupCorruptException(id, Path.of("private", Integer.toString(id)), "cannot be restored and read: " + e.getMessage());
    } finally {
      SideFiles.deleteTree(temp);
    }
  }

  private static void readEverything(Path db) throws RocksDBException {
    List<byte[]> names;
    try (Options o = new Options()) {
      names = RocksDB.listColumnFamilies(o, db.toString());
    }
    List<ColumnFamilyDescriptor> descriptors = names.stream().map(ColumnFamilyDescriptor::new).toList();
    List<ColumnFamilyHandle> handles = new java.util.ArrayList<>();
    try (DBOptions options = new DBOptions();
        RocksDB rocks = RocksDB.openReadOnly(options, db.toString(), descriptors, handles);
        ReadOptions read = new ReadOptions().setVerifyChecksums(true).setFillCache(false)) {
      try {
        for (ColumnFamilyHandle h : handles) {
          try (RocksIterator it = rocks.newIterator(h, read)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
              it.value();
            }
            it.status();
          }
        }
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
  }
}
