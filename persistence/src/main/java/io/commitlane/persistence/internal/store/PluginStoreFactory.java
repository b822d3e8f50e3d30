package io.commitlane.persistence.internal.store;

import io.commitlane.persistence.internal.plugin.PluginSettings;
import io.commitlane.annotation.InternalApi;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * INTERNAL API. Opens the {@link PluginStore} of a plugin whose settings hold a {@code replicated} section. Found with
 * {@link java.util.ServiceLoader} (the module {@code commitlane-persistence-replicated} provides it), so a service
 * that uses local databases only does not carry the replication module and Apache Ratis.
 */
@InternalApi
public interface PluginStoreFactory {
  /**
   * Open the store {@code settings} describe. Fails with {@link io.commitlane.storage.InvalidSettingsException} for
   * bad settings (naming each key), or with the error that kept the store from opening.
   *
   * @param executor the plugin dispatcher: where the store's blocking reads and continuations run
   */
  CompletionStage<PluginStore> open(PluginSettings settings, ActorSystem<?> system, Executor executor);
}
