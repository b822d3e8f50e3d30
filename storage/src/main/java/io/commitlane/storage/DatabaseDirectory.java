package io.commitlane.storage;

import io.commitlane.storage.internal.files.DropIntents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.rocksdb.RocksDBException;

/**
 * What a directory must hold for commitlane to open it as a database: nothing yet (a new
 * database), or a RocksDB database that commitlane created (it has commitlane's internal store).
 * A directory of other files, or a RocksDB database another program made, is refused rather than
 * written into.
 */
final class DatabaseDirectory {
  /**
   * Entries of a database directory that are commitlane's own besides RocksDB's files: the
   * transaction logs, pending store drops, and the cluster module's owner lock and epoch (taken
   * before a sharded database's first open).
   */
  private static final Set<String> OURS = Set.of("txlog", DropIntents.DIRECTORY, "owner.lock", "owner.epoch", "owner.epoch.tmp");
  /**
   * The names of files RocksDB writes while it creates a database: a creation cut short (a crash
   * before {@code CURRENT} was written) leaves some of them, and the next open creates the
   * database over them, as RocksDB does.
   */
  private static final Pattern ROCKSDB_FILE = Pattern.compile(
      "LOCK|IDENTITY|LOG|LOG\\.old\\.\\d+|MANIFEST-\\d+|OPTIONS-\\d+(\\.dbtmp)?|\\d+\\.(log|sst|blob|dbtmp)|CURRENT\\.dbtmp");

  private DatabaseDirectory() {}

  /**
   * @param stores the column families RocksDB lists at {@code dir} (empty when it holds no
   *     database)
   * @throws NotADatabaseException if the directory holds something else
   */
  static void requireOurs(Path dir, List<String> stores) {
    if (!stores.isEmpty()) {
      if (!stores.contains(Store.INTERNAL)) {
        throw new NotADatabaseException("open", dir, "it is a RocksDB database that commitlane did not create (it has no "
            + Store.INTERNAL + " column family); commitlane opens only its own databases and new, empty directories");
      }
      return;
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return; // created by the open
    }
    List<String> others = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path e : entries) {
        String name = e.getFileName().toString();
        if (!OURS.contains(name) && !ROCKSDB_FILE.matcher(name).matches()) {
          others.add(name);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
    if (!others.isEmpty()) {
      others.sort(null);
      throw new NotADatabaseException("open", dir, "it holds other files (" + String.join(", ", others.subList(0, Math.min(5, others.size())))
          + (others.size() > 5 ? ", ..." : "") + ") and no RocksDB database; open a new or empty directory");
    }
  }

  /** Whether RocksDB refused the open because another process holds the database's LOCK file. */
  static boolean isLockHeld(RocksDBException e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("lock") && (m.contains("Resource temporarily unavailable") || m.contains("No locks available")
        || m.contains("lock hold by current process"));
  }
}
