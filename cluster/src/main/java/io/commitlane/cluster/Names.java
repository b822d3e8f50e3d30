package io.commitlane.cluster;

import java.util.regex.Pattern;

/** The names a request carries, checked where the request is built: they become directory and column-family names. */
final class Names {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");

  private Names() {}

  /** A database name: it is the entity id and the directory under the node's data directory. */
  static String database(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidRequestException("database name " + quote(name)
          + " is invalid: use 1..200 of A-Z a-z 0-9 . _ - starting with a letter or digit (it names a directory)");
    }
    return name;
  }

  /** A store name, or null for the default store. */
  static String store(String name) {
    if (name != null && !NAME.matcher(name).matches()) {
      throw new InvalidRequestException("store name " + quote(name)
          + " is invalid: use null for the default store, or 1..200 of A-Z a-z 0-9 . _ - starting with a letter or digit");
    }
    return name;
  }

  /** A transaction-log name (a directory under the database's txlog/). */
  static String log(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidRequestException("log name " + quote(name)
          + " is invalid: use 1..200 of A-Z a-z 0-9 . _ - starting with a letter or digit (it names a directory)");
    }
    return name;
  }

  static byte[] key(byte[] key, String what) {
    if (key == null) {
      throw new InvalidRequestException(what + " has no key; keys are required (values may be null)");
    }
    return key;
  }

  private static String quote(String s) {
    return s == null ? "null" : '"' + s + '"';
  }
}
