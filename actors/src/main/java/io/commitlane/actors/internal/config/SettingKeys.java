package io.commitlane.actors.internal.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The keys under {@code commitlane { ... }} that this module reads, and the check that refuses
 * any other: a misspelt key would otherwise open with the default it meant to change. The keys
 * are those of this module's {@code reference.conf}, where every setting has its default and its
 * comment: adding a setting there makes it known here.
 */
public final class SettingKeys {
  /**
   * Sections whose insides are not settings of a database: the dispatchers this module defines
   * (Pekko dispatcher configuration), the cluster and replication modules' own sections, which
   * they validate, the sections of the stream stages and of projections, which their settings
   * classes validate, and {@code database}, which chooses a local or replicated database for a
   * configured database actor (replication-actors' {@code ConfiguredDatabaseActor}).
   */
  static final Set<String> SECTIONS = Set.of("commit-dispatcher", "log-dispatcher", "lifecycle-dispatcher", "cluster", "replication",
      "stream", "projection", "database");

  /** A section whose keys are store names (checked by {@link RocksDbTuningReader}), not settings. */
  static final String STORE_COMPRESSION = "rocksdb.store-compression";

  // After SECTIONS and STORE_COMPRESSION, which it reads as it is built.
  /** Every setting of a database, relative to {@code commitlane}: the leaves of reference.conf outside {@link #SECTIONS}. */
  public static final Set<String> SETTINGS = settingsOfReferenceConf();

  private SettingKeys() {}

  private static Set<String> settingsOfReferenceConf() {
    Config reference = ConfigFactory.parseResources(SettingKeys.class.getClassLoader(), "reference.conf").getConfig("commitlane");
    Set<String> keys = new TreeSet<>();
    for (Map.Entry<String, ConfigValue> e : reference.entrySet()) {
      String key = e.getKey();
      if (!SECTIONS.contains(key.split("\\.", 2)[0]) && !key.startsWith(STORE_COMPRESSION + ".")) {
        keys.add(key);
      }
    }
    return Collections.unmodifiableSet(keys);
  }

  /** Add an error for every key of {@code commitlane} (the section itself) that is not known. */
  static void refuseUnknown(ConfigSection commitlane) {
    commitlane.refuseUnknown(key -> SETTINGS.contains(key) || SECTIONS.contains(key.split("\\.", 2)[0])
            || key.startsWith(STORE_COMPRESSION + "."),
        key -> "is not a setting; the nearest known key is " + commitlane.path(nearest(key)));
  }

  /** The known key (or section) closest to {@code key} by edit distance. */
  static String nearest(String key) {
    Set<String> known = new TreeSet<>(SETTINGS);
    known.addAll(SECTIONS);
    return ConfigSection.nearest(key, known);
  }
}
