package io.commitlane.storage.internal.backup;

import io.commitlane.storage.BackupCorruptException;
import io.commitlane.storage.BackupException;
import io.commitlane.storage.BackupRefusedException;
import io.commitlane.storage.BackupRefusedException.Reason;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Pattern;

/**
 * Where a backup directory keeps what: RocksDB's {@code BackupEngine} its {@code meta/},
 * {@code private/} and {@code shared_checksum/}; commitlane {@code commitlane/<id>/} per backup
 * (its metadata, its checksum manifest, its logs and store-drop records) and {@code
 * commitlane/LOCK}, which one writer at a time holds. Also the path rules: a file named by a
 * backup must stay inside the backup directory, through {@code ..} or links.
 */
public final class BackupLayout {
  public static final String OURS = "commitlane";
  public static final String METADATA = "backup.properties";
  public static final String MANIFEST = "MANIFEST.sha256";
  private static final Pattern ID = Pattern.compile("[1-9]\\d{0,9}");

  public final Path root;

  BackupLayout(Path root) {
    this.root = root;
  }

  /** The backup directory as given, normalized; a path that is a link or a file is refused. */
  public static BackupLayout of(Path directory) {
    Path root = directory.toAbsolutePath().normalize();
    if (Files.isSymbolicLink(root)) {
      throw new BackupRefusedException(Reason.INVALID_PATH, directory
          + " is a symbolic link; give the backup directory's real path");
    }
    if (Files.exists(root, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      throw new BackupRefusedException(Reason.INVALID_PATH, directory + " is not a directory; give a directory for backups");
    }
    return new BackupLayout(root);
  }

  public Path ours() {
    return root.resolve(OURS);
  }

  public Path backup(int id) {
    return ours().resolve(Integer.toString(id));
  }

  public Path staging(int id) {
    return ours().resolve(id + ".tmp");
  }

  public static boolean isId(String name) {
    return ID.matcher(name).matches();
  }

  /**
   * {@code relative} as a file inside the backup directory: refused (as damage of {@code id}) if it
   * is empty, absolute, not a path at all, climbs with {@code ..}, or resolves through a link to
   * outside the directory.
   */
  public Path inside(int id, String relative) throws IOException {
    Path rel = named(id, relative);
    if (relative.isEmpty() || rel.isAbsolute() || relative.contains("..")) {
      throw new BackupCorruptException(id, rel, "is a path outside the backup directory, which a backup never names");
    }
    Path file = root.resolve(rel).normalize();
    if (!file.startsWith(root)) {
      throw new BackupCorruptException(id, rel, "is a path outside the backup directory, which a backup never names");
    }
    if (Files.exists(file)) {
      Path real = file.toRealPath();
      if (!real.startsWith(root.toRealPath())) {
        throw new BackupCorruptException(id, rel, "links to " + real + ", outside the backup directory");
      }
    }
    return file;
  }

  /** {@code relative}, a path a backup's files name, as a path; one that cannot be a path (a NUL byte) is damage. */
  public static Path named(int id, String relative) {
    try {
      return Path.of(relative);
    } catch (InvalidPathException e) {
      throw new BackupCorruptException(id, Path.of(relative.replace('\0', '?')), "is not a path (" + e.getReason()
          + "); the file naming it was changed or damaged");
    }
  }

  /** The writer lock of this directory; refused if another writer (here or in another process) has it. */
  public AutoCloseable lock() {
    try {
      Files.createDirectories(ours());
      FileChannel ch = FileChannel.open(ours().resolve("LOCK"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        ch.close();
        throw new BackupRefusedException(Reason.IN_USE, "another backup, restore, delete or purge is running on " + root
            + " (it holds " + ours().resolve("LOCK") + "); wait for it to finish and try again");
      }
      FileLock held = lock;
      return () -> {
        held.release();
        ch.close();
      };
    } catch (IOException e) {
      throw new BackupException("cannot lock backup directory " + root + ": " + e, e);
    }
  }

  /** The identity RocksDB gave the database in {@code dir} ({@code IDENTITY}), or null if there is none. */
  public static String identity(Path dir) {
    Path file = dir.resolve("IDENTITY");
    try {
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) > 1024) {
        return null;
      }
      return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      return null;
    }
  }
}
