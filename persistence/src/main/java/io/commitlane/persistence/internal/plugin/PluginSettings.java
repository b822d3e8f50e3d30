package io.commitlane.persistence.internal.plugin;

import io.commitlane.persistence.internal.store.Keys;
import io.commitlane.persistence.internal.store.PluginStoreFactory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.txlog.Durability;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * INTERNAL API. The settings of one plugin instance (a journal, snapshot store, state store or read journal), read
 * once from its plugin id's section and validated whole: every bad or unknown key is reported together, by its full
 * path, in one {@link io.commitlane.storage.InvalidSettingsException}.
 *
 * @param pluginId the plugin's config path
 * @param path the database directory
 * @param log the transaction log each commit appends to, or null for none
 * @param wal RocksDB's own WAL on or off for the database
 * @param durability when a commit is acknowledged: the log's durability
 * @param dispatcher where the plugin's blocking reads and continuations run
 * @param pageSize entries a query or replay reads per range read
 * @param replicated the {@code replicated} section (the group, this node's replica) when the plugin runs on a
 *     replicated database, else null; read by the replicated store's factory ({@link PluginStoreFactory})
 */
@InternalApi
public record PluginSettings(String pluginId, Path path, String log, boolean wal, Durability durability, String dispatcher,
    int pageSize, Config replicated) {
  /** Settings of a plugin on a local database. */
  public PluginSettings(String pluginId, Path path, String log, boolean wal, Durability durability, String dispatcher,
      int pageSize) {
    this(pluginId, path, log, wal, durability, dispatcher, pageSize, null);
  }

  /** What plugins sharing one store have in common: the database path, or the replicated section. */
  public Object storeKey() {
    return replicated != null ? replicated.root() : path;
  }

  /** The section that puts the plugin on a replicated database (read by the replicated store's factory). */
  private static final String REPLICATED = "replicated";
  private static final Pattern LOG_NAME = Pattern.compile("[A-Za-z0-9_\\-][A-Za-z0-9._\\-]{0,127}");
  /** The keys of a storage plugin's section this module defines. */
  static final Set<String> KEYS = keys();
  /** The Pekko sections whose keys every plugin of a kind inherits (Pekko merges them into the plugin's config). */
  private static final String[] PEKKO_FALLBACKS = {"pekko.persistence.journal-plugin-fallback",
      "pekko.persistence.snapshot-store-plugin-fallback", "pekko.persistence.state-plugin-fallback"};

  /** Read the storage plugin at {@code pluginId} of {@code system} (the actor system's whole config). */
  public static PluginSettings read(Config system, String pluginId) {
    return read(system, pluginId, Set.of());
  }

  /** As {@link #read(Config, String)}, the section also holding {@code extra} keys (the plugin reads those itself). */
  public static PluginSettings read(Config system, String pluginId, Set<String> extra) {
    ConfigSection s = new ConfigSection(withSharedDefaults(system, pluginId), pluginId);
    PluginSettings settings = read(s, pluginId, extra);
    s.throwIfInvalid();
    return settings;
  }

  /** Read the storage keys of {@code s}, refusing keys that are neither these, {@code extra}, nor Pekko's. */
  static PluginSettings read(ConfigSection s, String pluginId, Set<String> extra) {
    Set<String> known = new HashSet<>(KEYS);
    known.addAll(extra);
    known.add("class");
    s.refuseUnknown(key -> known.contains(key) || known.contains(key.split("\\.", 2)[0]) || isPekkoKey(s, key),
        key -> "is not a setting of this plugin; known: " + new java.util.TreeSet<>(known));
    Config replicated = null;
    if (s.has(REPLICATED)) {
      try {
        replicated = s.config().getConfig(REPLICATED);
      } catch (com.typesafe.config.ConfigException e) {
        s.error(REPLICATED, s.raw(REPLICATED), "must be a section naming the replicated group and this node's replica");
      }
      if (replicated != null && replicated.isEmpty()) {
        replicated = null; // an empty section: the local database
      }
    }
    String pathText = s.string(PersistenceKeys.PATH.key(), "", PersistenceKeys.PATH.allowed());
    Path path = null;
    if (replicated != null) {
      int pageSize = pageSize(s);
      String dispatcher = s.string(PersistenceKeys.PLUGIN_DISPATCHER.key(), null, PersistenceKeys.PLUGIN_DISPATCHER.allowed());
      // The replica's own settings (commitlane.replication) say how it keeps data; path, log, wal and durability are
      // the local database's and are not used.
      return new PluginSettings(pluginId, null, null, true, Durability.PROCESS, dispatcher, pageSize, replicated);
    }
    if (pathText.isBlank()) {
      s.error(PersistenceKeys.PATH.key(), pathText, "must name the database directory (set " + pluginId + ".path, or commitlane-persistence.path"
          + " for every plugin)");
    } else {
      try {
        path = Path.of(pathText).toAbsolutePath().normalize();
      } catch (RuntimeException e) {
        s.error(PersistenceKeys.PATH.key(), pathText, PersistenceKeys.PATH.allowed() + " (" + e.getMessage() + ")");
      }
    }
    // A value that cannot be read is reported; what stands in for it below is never returned.
    String log = s.string(PersistenceKeys.LOG.key(), "", PersistenceKeys.LOG.allowed());
    if (!log.isEmpty() && !LOG_NAME.matcher(log).matches()) {
      s.error(PersistenceKeys.LOG.key(), log, PersistenceKeys.LOG.allowed());
    }
    boolean wal = s.bool(PersistenceKeys.WAL.key(), false);
    if (log.isEmpty() && !wal) {
      s.error(PersistenceKeys.LOG.key(), log, "must name a transaction log while wal = off: with neither, nothing keeps acknowledged events"
          + " across a crash (set wal = on, or a log name)");
    }
    Durability durability = s.oneOf(PersistenceKeys.DURABILITY.key(), Durability.values(), Durability.PROCESS);
    if (durability == Durability.FSYNC && log.isEmpty()) {
      s.error(PersistenceKeys.DURABILITY.key(), "fsync", "needs a transaction log (log = <name>): without one, use wal = on and"
          + " commitlane.rocksdb-wal.ack-after-sync = on for synced acknowledgements");
    }
    String dispatcher = s.string(PersistenceKeys.PLUGIN_DISPATCHER.key(), null, PersistenceKeys.PLUGIN_DISPATCHER.allowed());
    int pageSize = pageSize(s);
    return new PluginSettings(pluginId, path, log.isEmpty() ? null : log, wal, durability, dispatcher, pageSize);
  }

  /** page-size, checked against its definition as it is read (a value that cannot be read is reported, its stand-in never returned). */
  private static int pageSize(ConfigSection s) {
    Setting page = PersistenceKeys.PAGE_SIZE;
    return s.intIn(page.key(), (int) page.min(), (int) page.max(), (int) page.min());
  }

  private static Set<String> keys() {
    Set<String> keys = new HashSet<>();
    PersistenceKeys.ALL.forEach(setting -> keys.add(setting.key()));
    keys.add(REPLICATED);
    return Set.copyOf(keys);
  }

  /** The root every plugin takes a storage key from when its own section does not set it. */
  public static final String SHARED = "commitlane-persistence";

  /**
   * {@code system} with the plugin's section completed by the storage keys of {@link #SHARED} it does not set (a
   * substitution in reference.conf cannot do it: reference.conf is resolved before application.conf is merged in).
   */
  static Config withSharedDefaults(Config system, String pluginId) {
    if (!system.hasPath(pluginId) || !system.hasPath(SHARED) || pluginId.equals(SHARED)) {
      return system;
    }
    Config plugin = system.getConfig(pluginId);
    Config shared = system.getConfig(SHARED);
    for (String key : KEYS) {
      if (!plugin.hasPath(key) && shared.hasPath(key) && !key.equals(PersistenceKeys.PLUGIN_DISPATCHER.key())) {
        plugin = plugin.withValue(key, shared.getValue(key));
      }
    }
    return plugin.atPath(pluginId).withFallback(system);
  }

  private static boolean isPekkoKey(ConfigSection s, String key) {
    return PEKKO_TOP_KEYS.contains(key.split("\\.", 2)[0]);
  }

  /** Keys Pekko's plugin fallbacks define (any kind): a plugin's section may hold them. */
  private static final Set<String> PEKKO_TOP_KEYS = pekkoKeys();

  private static Set<String> pekkoKeys() {
    // Pekko reads a journal's event adapters from its section, though its fallback does not define them.
    Set<String> keys = new HashSet<>(Set.of("event-adapters", "event-adapter-bindings"));
    Config reference = com.typesafe.config.ConfigFactory.defaultReference(PluginSettings.class.getClassLoader());
    for (String fallback : PEKKO_FALLBACKS) {
      if (reference.hasPath(fallback)) {
        for (Map.Entry<String, ConfigValue> e : reference.getConfig(fallback).root().entrySet()) {
          keys.add(e.getKey());
        }
      }
    }
    return keys;
  }

  /**
   * The {@code commitlane { }} settings the database is opened with: the actor system's, with this plugin's {@code
   * wal} and {@code durability} over them, and commit completions on the plugin dispatcher (the plugins' own
   * continuations run there too), so a journal puts no work at all on Pekko's default dispatcher.
   */
  public Config databaseConfig(Config system) {
    return com.typesafe.config.ConfigFactory.parseMap(Map.of(
            "commitlane.wal", wal ? "on" : "off",
            "commitlane.txlog.durability", durability.name().toLowerCase(java.util.Locale.ROOT),
            "commitlane.completion-dispatcher", dispatcher))
        .withFallback(system);
  }
}
