package io.commitlane.storage;

import io.commitlane.storage.internal.files.DatabaseFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The process's open databases by canonical path: one native handle per path, counted.
 * Opening, closing and destroying are serialized here, which keeps the rules simple: a path is
 * either being opened, open with a count, or not open.
 */
final class DatabaseRegistry {
  private static final Map<Path, SharedDatabase> OPEN = new HashMap<>();

  private DatabaseRegistry() {}

  static synchronized SharedDatabase acquire(Path path, DatabaseOptions options) {
    return acquire(path, options, false);
  }

  /** {@code readOnly}: a path open read-only and read-write at once in one process is refused (one handle per path). */
  static synchronized SharedDatabase acquire(Path path, DatabaseOptions options, boolean readOnly) {
    Path key = canonical(path, options.createIfMissing() && !readOnly);
    SharedDatabase shared = OPEN.get(key);
    if (shared == null) {
      if (readOnly && !Files.isRegularFile(key.resolve("CURRENT"))) {
        throw new NotADatabaseException("open read-only", key, "it has no RocksDB CURRENT file");
      }
      shared = SharedDatabase.open(key, options, readOnly);
      OPEN.put(key, shared);
    } else {
      if (shared.isReadOnly() != readOnly) {
        throw new PathInUseException("database " + key + " is already open " + (readOnly ? "for writing" : "read-only")
            + " in this process; use that handle, or close every handle first");
      }
      requireCompatible(shared, options);
      if (!readOnly) {
        for (String store : options.stores()) {
          shared.stores().createStore(store);
        }
      }
    }
    shared.references++;
    return shared;
  }

  static synchronized void release(SharedDatabase shared) {
    if (--shared.references == 0) {
      OPEN.remove(shared.path());
      shared.closeNative();
    }
  }

  static synchronized boolean isOpen(Path path) {
    return OPEN.containsKey(canonical(path, false));
  }

  static synchronized void destroy(Path path) {
    Path key = canonical(path, false);
    if (OPEN.containsKey(key)) {
      throw new PathInUseException("cannot destroy " + key + ": it is open in this process; close every handle first");
    }
    if (!Files.exists(key, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    DatabaseFiles.destroy(key);
  }

  private static void requireCompatible(SharedDatabase shared, DatabaseOptions wanted) {
    DatabaseOptions have = shared.options();
    // An open without explicit settings takes the open database's as they are; only settings
    // asked for explicitly must match.
    CommitlaneSettings wantedSettings = wanted.settings() == null ? shared.settings() : wanted.settings();
    if (have.walEnabled() != wanted.walEnabled() || !shared.settings().equals(wantedSettings)) {
      List<String> differ = new ArrayList<>();
      if (have.walEnabled() != wanted.walEnabled()) {
        differ.add("walEnabled: open with " + have.walEnabled() + ", asked for " + wanted.walEnabled());
      }
      differ.addAll(differences(shared.settings().asMap(), wantedSettings.asMap()));
      throw new PathInUseException("database " + shared.path() + " is already open in this process with other options ("
          + String.join("; ", differ) + "). Database-wide options are fixed by the first open: close every handle first,"
          + " or open with the same options");
    }
  }

  /** "key: open with a, asked for b" for each key whose values differ. */
  static List<String> differences(Map<String, ?> have, Map<String, ?> wanted) {
    Set<String> keys = new TreeSet<>(have.keySet());
    keys.addAll(wanted.keySet());
    List<String> out = new ArrayList<>();
    for (String k : keys) {
      if (!Objects.equals(have.get(k), wanted.get(k))) {
        out.add(k + ": open with " + have.get(k) + ", asked for " + wanted.get(k));
      }
    }
    return out;
  }

  private static Path canonical(Path path, boolean create) {
    try {
      Path abs = path.toAbsolutePath().normalize();
      if (Files.exists(abs) && !Files.isDirectory(abs)) {
        throw new NotADatabaseException("open", abs, "it is a file; a database is a directory");
      }
      if (create) {
        Files.createDirectories(abs);
      }
      return Files.exists(abs) ? abs.toRealPath() : abs;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resolve database path " + path, e);
    }
  }
}
