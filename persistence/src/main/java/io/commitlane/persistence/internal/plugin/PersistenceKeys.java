package io.commitlane.persistence.internal.plugin;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.txlog.Durability;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * INTERNAL API. The storage settings of a persistence plugin ({@link PluginSettings}), each defined
 * once: key, Java field, range and a line of doc. Unlike the other modules' definitions, a key here
 * is relative to a plugin's section ({@code commitlane-persistence.journal}, ...), which takes what
 * it does not set from {@code commitlane-persistence} ({@link PluginSettings#SHARED}); the defaults
 * are in this module's {@code reference.conf} only. A plugin's {@code replicated} section is read
 * by the replicated store's factory, not defined here.
 */
@InternalApi
public final class PersistenceKeys {
  public static final Setting PATH = Setting.text("path", "path", "a directory path",
      "the database directory the plugin uses");
  public static final Setting LOG = Setting.text("log", "log",
      "1..128 of A-Z a-z 0-9 . _ -, not starting with '.', or \"\" for no transaction log",
      "the transaction log every plugin commit appends to (a directory name under <path>/txlog/)");
  public static final Setting WAL = Setting.flag("wal", "wal", "RocksDB's own write-ahead log for the database");
  public static final Setting DURABILITY = Setting.oneOf("durability", "durability",
      Arrays.stream(Durability.values()).map(d -> d.name().toLowerCase(Locale.ROOT)).toList(), "when a write is acknowledged");
  public static final Setting PAGE_SIZE = Setting.integer("page-size", "pageSize", 1, 1_000_000,
      "entries a replay or a query reads per range read");
  /** Set in each plugin's own section: it is not taken from {@code commitlane-persistence}. */
  public static final Setting PLUGIN_DISPATCHER = Setting.text("plugin-dispatcher", "dispatcher", "a dispatcher path",
      "where the plugin's actor, its blocking reads and its continuations run");

  /** The storage keys a plugin takes from {@code commitlane-persistence} when its section does not set them, in reference.conf's order. */
  public static final List<Setting> SHARED = List.of(PATH, LOG, WAL, DURABILITY, PAGE_SIZE);
  /** Every setting above. */
  public static final List<Setting> ALL = List.of(PATH, LOG, WAL, DURABILITY, PAGE_SIZE, PLUGIN_DISPATCHER);

  private PersistenceKeys() {}
}
