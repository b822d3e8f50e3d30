package io.commitlane.actors.internal.protocol;

import io.commitlane.actors.InvalidRequestException;
import java.util.regex.Pattern;

/**
 * The names a protocol request carries, checked where the request is built. One rule for local
 * and sharded databases: a store name becomes a column family, a log name a directory.
 */
public final class RequestNames {
  private static final Pattern STORE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");
  /** The transaction logs' own rule (1..128 characters), starting with a letter or digit. */
  private static final Pattern LOG = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private RequestNames() {}

  /** A store name, or null for the default store. */
  public static String store(String name) {
    if (name != null && !STORE.matcher(name).matches()) {
      throw new InvalidRequestException("store name " + quote(name)
          + " is invalid: use null for the default store, or 1..200 of A-Z a-z 0-9 . _ - starting with a letter or digit");
    }
    return name;
  }

  /** A store that must be named (create, drop). */
  public static String namedStore(String name, String what) {
    if (name == null) {
      throw new InvalidRequestException(what + " needs a store name");
    }
    return store(name);
  }

  /** A transaction-log name (a directory under the database's txlog/). */
  public static String log(String name) {
    if (name == null || !LOG.matcher(name).matches()) {
      throw new InvalidRequestException("log name " + quote(name)
          + " is invalid: use 1..128 of A-Z a-z 0-9 . _ - starting with a letter or digit (it names a directory)");
    }
    return name;
  }

  public static byte[] key(byte[] key, String what) {
    if (key == null) {
      throw new InvalidRequestException(what + " has no key; keys are required (values may be null)");
    }
    return key;
  }

  private static String quote(String s) {
    return s == null ? "null" : '"' + s + '"';
  }
}
