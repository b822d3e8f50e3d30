package io.commitlane.storage.internal.backup;

import io.commitlane.storage.CapturedLog;
import io.commitlane.storage.internal.files.DropIntents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Copying what commitlane keeps beside RocksDB's files into a checkpoint, a backup or a restored
 * database, file by file, synced: the store-drop records and, when nothing writes them, the
 * transaction logs as opaque files. Only files commitlane itself names are copied.
 */
public final class SideFiles {
  public static final String TXLOG = "txlog";
  private static final Pattern SEGMENT = Pattern.compile("\\d{20}\\.txlog");
  private static final Pattern DROP_RECORD = Pattern.compile("\\d+\\.drop");
  private static final Pattern LOG_NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");

  /** Whether {@code name} can name a transaction log (a directory under {@code txlog/}). */
  public static boolean isLogName(String name) {
    return LOG_NAME.matcher(name).matches();
  }

  private SideFiles() {}

  /** Copies the store-drop records of {@code db} into {@code target}; returns the bytes copied. */
  public static long copyDropRecords(Path db, Path target) throws IOException {
    Path from = db.resolve(DropIntents.DIRECTORY);
    if (!Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    Path to = target.resolve(DropIntents.DIRECTORY);
    Files.createDirectories(to);
    long bytes = 0;
    for (Path f : entries(from)) {
      if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) && DROP_RECORD.matcher(f.getFileName().toString()).matches()) {
        bytes += copySynced(f, to.resolve(f.getFileName().toString()));
      }
    }
    syncDirectory(to);
    return bytes;
  }

  /**
   * Copies every log under {@code db/txlog} as opaque files (segments and the flushed position,
   * not the lock): right only while nothing appends to them.
   */
  public static List<CapturedLog> copyLogsAsFiles(Path db, Path txlogTarget) throws IOException {
    Path from = db.resolve(TXLOG);
    List<CapturedLog> out = new ArrayList<>();
    if (!Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    for (Path log : entries(from)) {
      String name = log.getFileName().toString();
      if (!LOG_NAME.matcher(name).matches() || !Files.isDirectory(log, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      Path to = txlogTarget.resolve(name);
      Files.createDirectories(to);
      long bytes = 0;
      for (Path f : entries(log)) {
        String file = f.getFileName().toString();
        if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) && (SEGMENT.matcher(file).matches() || file.equals("flushed-position"))) {
          bytes += copySynced(f, to.resolve(file));
        }
      }
      syncDirectory(to);
      out.add(new CapturedLog(name, -1, -1, bytes));
    }
    syncDirectory(txlogTarget);
    return out;
  }

  /** Copies one file and forces it to disk; returns its size. */
  public static long copySynced(Path from, Path to) throws IOException {
    Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
    try (FileChannel ch = FileChannel.open(to, StandardOpenOption.WRITE)) {
      ch.force(true);
      return ch.size();
    }
  }

  /** Forces a directory's entries to disk (where the platform allows opening a directory). */
  public static void syncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some platforms cannot open a directory; the files themselves are forced.
    }
  }

  /** Deletes a tree this process created (no links are followed out of it). */
  public static void deleteTree(Path root) {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
          Files.deleteIfExists(dir);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + root, e);
    }
  }

  public static List<Path> entries(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      s.forEach(out::add);
    }
    out.sort(null);
    return out;
  }

  /** The sum of the sizes of the regular files under {@code root}; one removed while it is walked (a purged log segment) counts nothing. */
  public static long treeSize(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    long[] total = {0};
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (attrs.isRegularFile()) {
          total[0] += attrs.size();
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }
    });
    return total[0];
  }
}
