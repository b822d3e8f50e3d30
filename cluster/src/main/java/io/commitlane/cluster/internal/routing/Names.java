package io.commitlane.cluster.internal.routing;

import io.commitlane.actors.InvalidRequestException;
import java.util.regex.Pattern;

/** A database name, checked where a request is built: it is the entity id and a directory name. */
public final class Names {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");

  private Names() {}

  /** A database name: it is the entity id and the directory under the node's data directory. */
  public static String database(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidRequestException("database name " + quote(name)
          + " is invalid: use 1..200 of A-Z a-z 0-9 . _ - starting with a letter or digit (it names a directory)");
    }
    return name;
  }

  private static String quote(String s) {
    return s == null ? "null" : '"' + s + '"';
  }
}
