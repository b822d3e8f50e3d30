package io.commitlane.storage;

import io.commitlane.storage.BackupRefusedException.Reason;
import io.commitlane.storage.internal.backup.BackupLayout;
import io.commitlane.storage.internal.backup.BackupManifest;
import io.commitlane.storage.internal.backup.SideFiles;
import io.commitlane.storage.internal.files.DropIntents;
import io.commitlane.storage.internal.files.RealPaths;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.rocksdb.BackupEngine;
import org.rocksdb.RestoreOptions;
import org.rocksdb.RocksDBException;

/**
 * Restores a verified backup. RocksDB's restore empties the directory it restores into, so it
 * restores into a staging directory beside the target ({@code .<name>.restoring-<id>}), commitlane's
 * logs and store-drop records are copied in (the files the manifest lists, nothing else), and then
 * the staging directory is renamed to the target (one atomic rename when the target is missing or
 * empty), or its entries are moved into a target that keeps files of someone else's. A crash
 * leaves the staging directory (the next restore removes it) and the backup untouched.
 */
final class BackupRestore {
  private BackupRestore() {}

  static void run(BackupStore store, int id, Path target, io.commitlane.storage.RestoreOptions options,
      BackupProgress progress) {
    BackupLayout layout = store.layout();
    Path dest = target.toAbsolutePath().normalize();
    try (AutoCloseable lock = layout.lock()) {
      BackupInfo info = BackupVerifier.verify(store, id, false, progress);
      if (RealPaths.overlap(dest, layout.root)) {
        throw new BackupRefusedException(Reason.INVALID_PATH, "cannot restore into " + dest
            + ": it is inside the backup directory " + layout.root + " or holds it; choose a directory outside it");
      }
      prepareTarget(dest, info, options);
      Path staging = dest.resolveSibling("." + dest.getFileName() + ".restoring-" + id);
      SideFiles.deleteTree(staging);
      Files.createDirectories(dest.getParent());
      progress.progress("restore", 0, info.sizeBytes());
      try {
        try (BackupEngine engine = store.engine(); RestoreOptions ro = new RestoreOptions(false)) {
          engine.restoreDbFromBackup(id, staging.toString(), staging.toString(), ro);
        }
        progress.progress("restore", info.sizeBytes() / 2, info.sizeBytes()); // RocksDB's files are staged
        copySideFiles(layout, id, BackupManifest.read(layout, id), staging);
        SideFiles.syncDirectory(staging);
      } catch (Exception e) {
        SideFiles.deleteTree(staging); // a crash leaves it instead, for the next restore to remove
        throw e;
      }
      moveInto(staging, dest);
      progress.progress("restore", info.sizeBytes(), info.sizeBytes());
    } catch (BackupException | PathInUseException e) {
      throw e;
    } catch (RocksDBException e) {
      throw new BackupException("RocksDB could not restore backup " + id + " into " + dest + ": " + e.getMessage()
          + "; check the space there and try again", e);
    } catch (Exception e) {
      throw new BackupException("restoring backup " + id + " into " + dest + " failed: " + e
          + "; check the space and permissions there and try again", e);
    }
  }

  /** Refuses a target in use, not empty (unless replacing), or another database (unless allowed); clears a replaced one. */
  private static void prepareTarget(Path dest, BackupInfo info, io.commitlane.storage.RestoreOptions options)
      throws IOException {
    if (Database.isOpen(dest)) {
      throw new BackupRefusedException(Reason.IN_USE, "cannot restore into " + dest
          + ": the database there is open in this process; close it first");
    }
    if (!Files.exists(dest, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (!Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)) {
      throw new BackupRefusedException(Reason.INVALID_PATH, "cannot restore into " + dest + ": it is not a directory");
    }
    if (SideFiles.entries(dest).isEmpty()) {
      return;
    }
    refuseIfLocked(dest);
    if (!options.replaceExisting()) {
      throw new BackupRefusedException(Reason.INVALID_PATH, "cannot restore into " + dest + ": it is not empty; restore into a"
          + " new directory, or ask to replace the database there (RestoreOptions.replacingExisting(), --replace)");
    }
    String there = BackupLayout.identity(dest);
    if (there != null && info.sourceIdentity() != null && !there.equals(info.sourceIdentity()) && !options.allowOtherDatabase()) {
      throw new BackupRefusedException(Reason.INVALID_PATH, "cannot restore backup " + info.id() + " into " + dest
          + ": it was taken of another database (" + info.sourcePath() + ", identity " + info.sourceIdentity() + ", not " + there + "); ask for it"
          + " explicitly (RestoreOptions.allowingOtherDatabase(), --allow-other-database) if you mean to replace it");
    }
    try {
      Database.destroy(dest); // only the database's own files; anyone else's stay
    } catch (NotADatabaseException e) {
      // nothing of a database there: restore beside what is there
    }
  }

  /** RocksDB's LOCK held by another process means that process has the database open. */
  private static void refuseIfLocked(Path dest) throws IOException {
    Path lockFile = dest.resolve("LOCK");
    if (!Files.isRegularFile(lockFile, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock lock = ch.tryLock();
      if (lock == null) {
        throw new BackupRefusedException(Reason.IN_USE, "cannot restore into " + dest
            + ": another process has the database open; close it there first");
      }
      lock.release();
    }
  }

  private static void moveInto(Path staging, Path dest) throws IOException {
    if (Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS) && SideFiles.entries(dest).isEmpty()) {
      Files.delete(dest);
    }
    if (!Files.exists(dest, LinkOption.NOFOLLOW_LINKS)) {
      Files.move(staging, dest, StandardCopyOption.ATOMIC_MOVE);
      SideFiles.syncDirectory(dest.getParent());
      return;
    }
    List<Path> entries = SideFiles.entries(staging);
    for (Path p : entries) {
      if (Files.exists(dest.resolve(p.getFileName().toString()), LinkOption.NOFOLLOW_LINKS)) {
        SideFiles.deleteTree(staging);
        throw new BackupRefusedException(Reason.INVALID_PATH, "cannot restore into " + dest + ": it holds "
            + p.getFileName() + ", which is not the database's and which the restore would overwrite; move it away and try again");
      }
    }
    for (Path p : entries) {
      Files.move(p, dest.resolve(p.getFileName().toString()), StandardCopyOption.ATOMIC_MOVE);
    }
    Files.delete(staging);
    SideFiles.syncDirectory(dest);
  }

  /**
   * Copies the logs and store-drop records of backup {@code id} into {@code staging}: the files
   * {@code entries} (its manifest) lists, nothing else that may be in its directory.
   */
  static void copySideFiles(BackupLayout layout, int id, List<BackupManifest.Entry> entries, Path staging) throws IOException {
    String ours = BackupLayout.OURS + "/" + id + "/";
    Set<Path> directories = new TreeSet<>();
    for (BackupManifest.Entry e : entries) {
      if (!e.path().startsWith(ours + SideFiles.TXLOG + "/") && !e.path().startsWith(ours + DropIntents.DIRECTORY + "/")) {
        continue;
      }
      Path from = layout.inside(id, e.path());
      Path to = staging.resolve(e.path().substring(ours.length())).normalize();
      if (!to.startsWith(staging)) {
        throw new BackupCorruptException(id, Path.of(e.path()), "is a path outside the backup directory, which a backup never names");
      }
      Files.createDirectories(to.getParent());
      if (SideFiles.copySynced(from, to) != e.size()) {
        throw new BackupCorruptException(id, Path.of(e.path()), "changed while it was restored (it is not the size recorded)");
      }
      for (Path d = to.getParent(); !d.equals(staging); d = d.getParent()) {
        directories.add(d); // each holds a new entry: the file, or the directory below it
      }
    }
    directories.forEach(SideFiles::syncDirectory);
  }
}
