package io.commitlane.storage;

import java.util.List;
import java.util.Objects;

/**
 * How to open a database. The database-wide part ({@link #walEnabled()} and the settings) is
 * fixed by the first open of a path in this process; a later open of the same path with
 * different values is refused with {@link PathInUseException}.
 *
 * @param walEnabled whether RocksDB's write-ahead log is written (default true). With it off, a
 *     crash loses recent writes unless the transaction log replays them.
 * @param createIfMissing create the database if the path holds none (default true)
 * @param stores named stores to create if missing, besides {@code default}
 * @param settings the settings to open with, or null for {@link CommitlaneSettings#defaults()}
 */
public record DatabaseOptions(boolean walEnabled, boolean createIfMissing, List<String> stores, CommitlaneSettings settings) {
  public DatabaseOptions {
    stores = List.copyOf(Objects.requireNonNull(stores, "stores"));
  }

  public static DatabaseOptions defaults() {
    return new DatabaseOptions(true, true, List.of(), null);
  }

  public DatabaseOptions withWal(boolean enabled) {
    return new DatabaseOptions(enabled, createIfMissing, stores, settings);
  }

  public DatabaseOptions withCreateIfMissing(boolean create) {
    return new DatabaseOptions(walEnabled, create, stores, settings);
  }

  public DatabaseOptions withStores(String... names) {
    return new DatabaseOptions(walEnabled, createIfMissing, List.of(names), settings);
  }

  public DatabaseOptions withSettings(CommitlaneSettings s) {
    return new DatabaseOptions(walEnabled, createIfMissing, stores, s);
  }

  CommitlaneSettings resolvedSettings() {
    return settings != null ? settings : CommitlaneSettings.defaults();
  }
}
