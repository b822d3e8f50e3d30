package io.commitlane.storage;

import io.commitlane.storage.BackupRefusedException.Reason;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.rocksdb.BackupEngine;
import org.rocksdb.RestoreOptions;
import org.rocksdb.RocksDBException;

/**
 * Restores a verified backup. RocksDB's restore empties the directory it restores into, so it
 * restores into a staging directory beside the target ({@code .<name>.restoring-<id>}), commitlane's
 * logs and store-drop records are copied in, and then the staging directory is renamed to the
 * target (one atomic rename when the target is missing or empty), or its entries are moved into a
 * target that keeps files of someone else's. A crash leaves the staging directory (the next
 * restore removes it) and the backup untouched.
 */
final class BackupRestore {
  private BackupRestore() {}

  static void run(BackupStore store, int id, Path target, io.commitlane.storage.RestoreOptions options,
      BackupProgress progress) {
    BackupLayout layout = store.layout();
    Path dest = target.toAbsolutePath().normalize();
    try (AutoCloseable lock = layout.lock()) {
      BackupInfo info = BackupVerifier.verify(store, id, false, progress);
      if (dest.startsWith(layout.root) || layout.root.startsWith(dest)) {
        throw new BackupRefusedException(Reason.INVALID_PATH, "cannot restore into " + dest
            + ": it is inside the backup directory " + layout.root + " or holds it; choose a directory outside it");
      }
      prepareTarget(dest, info, options);
      Path staging = dest.resolveSibling("." + dest.getFileName() + ".restoring-" + id);
      SideFiles.deleteTree(staging);
      Files.createDirectories(dest.getParent());
      progress.progress("restore", 0, info.sizeBytes());
      try (BackupEngine engine = store.engine(); RestoreOptions ro = new RestoreOptions(false)) {
        engine.restoreDbFromBackup(id, staging.toString(), staging.toString(), ro);
      }
      progress.progress("restore", info.sizeBytes() / 2, info.sizeBytes()); // RocksDB's files are staged
      copyTree(layout.backup(id).resolve(SideFiles.TXLOG), staging.resolve(SideFiles.TXLOG));
      copyTree(layout.backup(id).resolve(DropIntents.DIRECTORY), staging.resolve(DropIntents.DIRECTORY));
      SideFiles.syncDirectory(staging);
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

  private static void copyTree(Path from, Path to) throws IOException {
    if (!Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (var walk = Files.walk(from)) {
      for (Path p : walk.sorted().toList()) {
        Path dst = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectories(dst);
        } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          SideFiles.copySynced(p, dst);
        }
      }
    }
    SideFiles.syncDirectory(to);
  }
}
