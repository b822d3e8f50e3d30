package io.commitlane.storage;

import io.commitlane.storage.BackupRefusedException.Reason;
import io.commitlane.storage.internal.backup.BackupLayout;
import io.commitlane.storage.internal.backup.BackupManifest;
import io.commitlane.storage.internal.backup.BackupMetadata;
import io.commitlane.storage.internal.backup.SideFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
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
 * Verifies a backup against its manifest: every listed file's size and SHA-256 (RocksDB's
 * description of the backup first, then the files, the metadata and the manifest's own checksum),
 * that no path leaves the backup directory, that RocksDB's description names no file the manifest
 * lacks, that RocksDB's backup engine accepts the backup, that the backup's own directories
 * ({@code commitlane/<id>/}, {@code private/<id>/}) hold no file the manifest does not list (a file
 * put there later, which a restore must not copy), and that its metadata is readable. Deep
 * verification also restores the backup into a temporary directory and reads every key of every
 * store with block checksums on. The first damage found is thrown as {@link BackupCorruptException}.
 */
final class BackupVerifier {
  private BackupVerifier() {}

  static BackupInfo verify(BackupStore store, int id, boolean deep, BackupProgress progress) {
    BackupLayout layout = store.layout();
    try {
      Path dir = layout.backup(id);
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        Path meta = layout.root.resolve("meta").resolve(Integer.toString(id));
        if (!Files.exists(meta, LinkOption.NOFOLLOW_LINKS) && !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
          throw new BackupRefusedException(Reason.NO_SUCH_BACKUP, "there is no backup " + id + " in " + layout.root
              + "; list them to see which there are");
        }
        throw new BackupCorruptException(id, layout.root.relativize(dir), Files.exists(dir, LinkOption.NOFOLLOW_LINKS)
            ? "is not a directory" : "is missing: the backup was interrupted; delete it");
      }
      List<BackupManifest.Entry> entries = BackupManifest.read(layout, id);
      long total = 0;
      for (BackupManifest.Entry e : entries) {
        total += e.size();
      }
      long done = 0;
      for (BackupManifest.Entry e : entries) {
        checkFile(layout, id, e);
        done += e.size();
        progress.progress("verify", done, total);
      }
      Set<String> listed = new HashSet<>();
      entries.forEach(e -> listed.add(e.path()));
      for (String rocks : BackupManifest.rocksDbFiles(layout, id)) {
        if (!listed.contains(rocks)) {
          throw new BackupCorruptException(id, BackupLayout.named(id, rocks),
              "is named by RocksDB's description of the backup but not by its manifest");
        }
      }
      try (BackupEngine engine = store.engine()) {
        if (IntStream.of(engine.getCorruptedBackups()).anyMatch(c -> c == id)) {
          throw new BackupCorruptException(id, Path.of("meta", Integer.toString(id)),
              "is refused by RocksDB's backup engine, although every file matches the manifest (the manifest was rewritten)");
        }
      } catch (RocksDBException e) {
        throw new BackupException("cannot open the backups in " + layout.root + " to verify backup " + id + ": " + e.getMessage(), e);
      }
      refuseUnlisted(layout, id, dir, listed);
      refuseUnlisted(layout, id, layout.root.resolve("private").resolve(Integer.toString(id)), listed);
      BackupInfo info = BackupMetadata.read(layout, id);
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

  /** One listed file: inside the directory, a regular file, of the recorded size and SHA-256. */
  private static void checkFile(BackupLayout layout, int id, BackupManifest.Entry e) throws IOException {
    Path file = layout.inside(id, e.path());
    Path rel = Path.of(e.path());
    if (Files.isSymbolicLink(file)) {
      throw new BackupCorruptException(id, rel, "is a symbolic link, which a backup never holds");
    }
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new BackupCorruptException(id, rel, Files.exists(file, LinkOption.NOFOLLOW_LINKS) ? "is not a file" : "is missing");
    }
    if (Files.size(file) != e.size()) {
      throw new BackupCorruptException(id, rel, "has " + Files.size(file) + " bytes, not the " + e.size() + " recorded");
    }
    if (!BackupManifest.sha256(file).equals(e.sha256())) {
      throw new BackupCorruptException(id, rel, "does not match its recorded SHA-256 (a changed or damaged byte)");
    }
  }

  /**
   * Anything under {@code root} (one backup's own directory) but directories that the manifest
   * does not list is damage: it was put there after the backup was taken. Links are not followed.
   */
  private static void refuseUnlisted(BackupLayout layout, int id, Path root, Set<String> listed) throws IOException {
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    String manifest = BackupLayout.OURS + "/" + id + "/" + BackupLayout.MANIFEST; // it does not list itself
    List<String> unlisted = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted().toList()) {
        String rel = layout.root.relativize(p).toString().replace('\\', '/');
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) && !listed.contains(rel) && !rel.equals(manifest)) {
          unlisted.add(rel);
        }
      }
    }
    if (!unlisted.isEmpty()) {
      throw new BackupCorruptException(id, Path.of(unlisted.get(0)), "is not listed in its manifest: it was put there after"
          + " the backup was taken" + (unlisted.size() > 1 ? " (and " + (unlisted.size() - 1) + " more such files)" : ""));
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
