package io.commitlane.persistence;

import com.typesafe.config.Config;
import io.commitlane.persistence.internal.plugin.PluginSettings;
import java.nio.file.Path;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The database behind a plugin, for application code that shares it: open it with {@link #databaseConfig} and the
 * handle is the plugins' own database (the same settings), not a {@link io.commitlane.storage.PathInUseException}.
 *
 * <pre>{@code
 * Path path = CommitlanePersistence.path(system, "commitlane-persistence.journal");
 * CommitlaneDatabase db = Commitlane.get(system).open(path, CommitlanePersistence.databaseConfig(system,
 *     "commitlane-persistence.journal"));
 * }</pre>
 *
 * The plugins keep their data in the store {@code pekko-persistence}; write only to other stores.
 */
public final class CommitlanePersistence {
  private CommitlanePersistence() {}

  /** The database directory of the plugin at {@code pluginId}; throws {@code InvalidSettingsException} for bad settings. */
  public static Path path(ActorSystem<?> system, String pluginId) {
    PluginSettings settings = PluginSettings.read(system.settings().config(), pluginId);
    if (settings.replicated() != null) {
      throw new io.commitlane.storage.InvalidSettingsException(java.util.List.of(
          new io.commitlane.storage.InvalidSettingsException.SettingError(pluginId + ".replicated", null, "absent for a"
              + " local database to share: this plugin runs on a replicated database, which has no local path to open")));
    }
    return settings.path();
  }

  /** The {@code commitlane { }} settings the plugin at {@code pluginId} opens its database with. */
  public static Config databaseConfig(ActorSystem<?> system, String pluginId) {
    Config config = system.settings().config();
    return PluginSettings.read(config, pluginId).databaseConfig(config);
  }
}
