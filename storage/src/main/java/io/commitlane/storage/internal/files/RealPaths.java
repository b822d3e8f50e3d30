package io.commitlane.storage.internal.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Where a path really leads: what decides whether one directory is inside another. Comparing
 * normalized paths is not enough: a parent that is a symbolic link leads anywhere ({@code
 * link/backups} with {@code link} to the database directory is inside the database).
 */
public final class RealPaths {
  private RealPaths() {}

  /**
   * {@code path} (absolute and normalized first, as it is used) with every link in the part that
   * exists resolved; the part that does not exist yet is appended as it is.
   */
  static Path of(Path path) {
    Path abs = path.toAbsolutePath().normalize();
    Path existing = abs;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return abs;
    }
    try {
      Path real = Files.exists(existing) ? existing.toRealPath() : existing; // a dangling link stays as it is
      return real.resolve(existing.relativize(abs)).normalize();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resolve " + path, e);
    }
  }

  /** Whether {@code a} and {@code b} really are the same directory or one is inside the other. */
  public static boolean overlap(Path a, Path b) {
    Path ra = of(a);
    Path rb = of(b);
    return ra.startsWith(rb) || rb.startsWith(ra);
  }
}
