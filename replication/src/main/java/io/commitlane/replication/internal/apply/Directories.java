package io.commitlane.replication.internal.apply;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;

/** Whole-directory steps a replica takes on its own files. */
public final class Directories {
  private Directories() {}

  /** Deletes {@code dir} and everything in it; nothing if it does not exist. */
  public static void delete(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        if (e != null) {
          throw e;
        }
        Files.delete(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /**
   * Makes {@code target} a copy of the files of {@code source} except those ending in {@code
   * skipSuffix}. RocksDB's table files are never changed once written, so they are hard-linked
   * where the file system allows; every other file (manifest, WAL, logs) is copied, since the
   * database opened on the copy may append to it. Written under a staging name and renamed, so
   * {@code target} is whole or absent.
   */
  static void linkCopy(Path source, Path target, String skipSuffix) throws IOException {
    Path staging = target.resolveSibling(target.getFileName() + ".staging");
    delete(staging);
    Files.createDirectories(staging);
    try (var files = Files.walk(source)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path rel = source.relativize(p);
        Path dest = staging.resolve(rel.toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(dest);
        } else if (!p.getFileName().toString().endsWith(skipSuffix)) {
          linkOrCopy(p, dest);
        }
      }
    }
    Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
  }

  private static void linkOrCopy(Path source, Path dest) throws IOException {
    if (source.getFileName().toString().endsWith(".sst")) {
      try {
        Files.createLink(dest, source);
        return;
      } catch (IOException | UnsupportedOperationException e) {
        // another file system, or links not allowed: copy it
      }
    }
    Files.copy(source, dest, StandardCopyOption.COPY_ATTRIBUTES);
  }
}
