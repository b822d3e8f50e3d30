package io.commitlane.storage.internal.files;

import io.commitlane.storage.Database;
import io.commitlane.storage.NotADatabaseException;
import io.commitlane.storage.PathInUseException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a database directory holds, and so what {@link Database#destroy} may delete: RocksDB's own
 * files, as its manifest names them ({@link RocksDbOwnFiles}), and the files commitlane's modules
 * keep beside them:
 * transaction logs under {@code txlog/<name>/}, store-drop records under {@code store-drops/},
 * and a cluster node's {@code owner.lock} and {@code owner.epoch}. Anything else in the directory is the user's and stays,
 * and so does the directory if anything stayed.
 */
public final class DatabaseFiles {
  private static final String TXLOG = "txlog";
  private static final Pattern SEGMENT = Pattern.compile("\\d{20}\\.txlog");
  private static final List<String> LOG_SIDE_FILES = List.of("flushed-position", "flushed-position.tmp", "LOCK");
  private static final Pattern DROP_RECORD = Pattern.compile("\\d+\\.drop(\\.tmp)?");
  private static final List<String> ROOT_SIDE_FILES = List.of("owner.lock", "owner.epoch", "owner.epoch.tmp");

  private DatabaseFiles() {}

  /**
   * Deletes the database in {@code dir} (not open anywhere in this process): refuses a directory
   * that holds no database with {@link NotADatabaseException}. An empty directory is removed.
   */
  public static void destroy(Path dir) {
    try {
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        throw new NotADatabaseException(dir, "it is not a directory");
      }
      if (isEmpty(dir)) {
        Files.delete(dir);
        return;
      }
      boolean rocksDb = Files.exists(dir.resolve("CURRENT"), LinkOption.NOFOLLOW_LINKS);
      boolean logs = Files.isDirectory(dir.resolve(TXLOG), LinkOption.NOFOLLOW_LINKS);
      boolean drops = Files.isDirectory(dir.resolve(DropIntents.DIRECTORY), LinkOption.NOFOLLOW_LINKS);
      if (!rocksDb && !logs && !drops) {
        throw new NotADatabaseException(dir, "it has no RocksDB CURRENT file and no transaction logs");
      }
      if (rocksDb) {
        // Read before anything is deleted: a CURRENT that names no manifest refuses the whole directory.
        RocksDbManifest manifest = RocksDbManifest.read(dir);
        List<Path> own = RocksDbOwnFiles.of(dir, manifest);
        try (FileChannel lockFile = openIfExists(dir.resolve("LOCK"))) {
          // RocksDB's lock, held while its files go, as RocksDB's own destroy does.
          if (lockFile != null && lockFile.tryLock() == null) {
            throw new PathInUseException("cannot destroy " + dir + ": another process has the database open; close it there first");
          }
          for (Path file : own) {
            if (!file.getFileName().toString().equals("LOCK")) {
              Files.deleteIfExists(file);
            }
          }
        }
        if (own.contains(dir.resolve("LOCK"))) {
          Files.deleteIfExists(dir.resolve("LOCK"));
        }
      }
      if (logs) {
        Path root = dir.resolve(TXLOG);
        for (Path log : entries(root)) {
          if (Files.isDirectory(log, LinkOption.NOFOLLOW_LINKS)) {
            deleteMatching(log, name -> SEGMENT.matcher(name).matches() || LOG_SIDE_FILES.contains(name));
            deleteIfEmpty(log);
          }
        }
        deleteIfEmpty(root);
      }
      if (drops) {
        Path records = dir.resolve(DropIntents.DIRECTORY);
        deleteMatching(records, name -> DROP_RECORD.matcher(name).matches());
        deleteIfEmpty(records);
      }
      deleteMatching(dir, ROOT_SIDE_FILES::contains);
      deleteIfEmpty(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot destroy " + dir, e);
    }
  }

  private static FileChannel openIfExists(Path file) throws IOException {
    try {
      return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static void deleteMatching(Path dir, java.util.function.Predicate<String> ours) throws IOException {
    for (Path p : entries(dir)) {
      if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && ours.test(p.getFileName().toString())) {
        Files.delete(p);
      }
    }
  }

  private static void deleteIfEmpty(Path dir) throws IOException {
    if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) && isEmpty(dir)) {
      Files.delete(dir);
    }
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      return !s.iterator().hasNext();
    }
  }

  private static List<Path> entries(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      s.forEach(out::add);
    }
    return out;
  }
}
