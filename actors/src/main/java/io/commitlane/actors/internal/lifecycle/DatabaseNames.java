package io.commitlane.actors.internal.lifecycle;

import java.nio.file.Path;

/** The names a database path goes by: in messages and replies, and in actor names. */
public final class DatabaseNames {
  private DatabaseNames() {}

  /** The path's last element as it is (the whole path for a root), for messages and replies. */
  public static String of(Path path) {
    Path file = path.getFileName();
    return file == null ? path.toString() : file.toString();
  }

  /**
   * The path's last element with every character an actor name does not allow replaced by
   * {@code _} ({@code root} for a root, {@code db} if nothing is left).
   */
  public static String forActors(Path path) {
    Path file = path.getFileName();
    String name = file == null ? "root" : file.toString().replaceAll("[^A-Za-z0-9_-]", "_");
    return name.isEmpty() ? "db" : name;
  }
}
