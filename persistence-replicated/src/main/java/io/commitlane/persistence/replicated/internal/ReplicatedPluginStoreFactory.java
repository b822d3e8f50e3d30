package io.commitlane.persistence.replicated.internal;

import com.typesafe.config.Config;
import io.commitlane.annotation.InternalApi;
import io.commitlane.persistence.internal.plugin.PluginSettings;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.store.PluginStoreFactory;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.actors.ReplicatedDatabaseSettings;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * INTERNAL API. Opens the plugins' store on a replicated database, found by {@code commitlane-persistence}'s {@link
 * java.util.ServiceLoader}: reads the {@code replicated} section with the same reader as a configured database actor
 * ({@link ReplicatedDatabaseSettings}), starts this node's replica node with its {@code commitlane.replication}
 * settings and hosts the group's replica, on Pekko's blocking-I/O dispatcher.
 *
 * <p>A node without a replica ({@code node = client}) is refused: the plugins read this node's replica (replay, queries,
 * the live watermark), and a client reads every key through the leader.
 */
@InternalApi
public final class ReplicatedPluginStoreFactory implements PluginStoreFactory {
  /**
   * The largest write's keys and values: half the largest replicated commit, leaving room for the commit's encoding
   * (store names, lengths, position stamps) of writes of many small changes.
   */
  static final long MAX_WRITE_BYTES = ReplicatedDatabase.MAX_COMMIT_BYTES / 2;

  @Override
  public CompletionStage<PluginStore> open(PluginSettings settings, ActorSystem<?> system, Executor executor) {
    String at = settings.pluginId() + ".replicated";
    ReplicatedDatabaseSettings replicated;
    try {
      replicated = read(settings.replicated(), at);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    Config config = system.settings().config();
    return CompletableFuture.supplyAsync(() -> {
      ReplicaNodeSettings nodeSettings = ReplicaNodeSettings.fromConfig(replicated.self().orElseThrow(),
          replicated.directory(), config);
      ReplicaNode node = ReplicaNode.start(nodeSettings);
      try {
        ReplicatedDatabase db = node.host(replicated.group());
        long maxWrite = Math.min(MAX_WRITE_BYTES, nodeSettings.logSegmentBytes() / 2);
        return (PluginStore) new ReplicatedPluginStore(db, executor, maxWrite, node);
      } catch (RuntimeException e) {
        node.close();
        throw e;
      }
    }, system.dispatchers().lookup(DispatcherSelector.blocking()));
  }

  /**
   * The {@code replicated} section at {@code at}, checked whole: its own keys, and a replica on this node.
   *
   * @throws InvalidSettingsException naming every key that is wrong
   */
  public static ReplicatedDatabaseSettings read(Config section, String at) {
    ReplicatedDatabaseSettings s = ReplicatedDatabaseSettings.read(section, at);
    if (!s.hostsReplica()) {
      throw new InvalidSettingsException(List.of(new SettingError(at + ".node", s.node(), "the id of this node's replica"
          + " (one of the voters or listeners, with a directory): the persistence plugins read a replica on their own"
          + " node for recovery and queries, and a node without one (client) is not supported; run a listener replica"
          + " on this node instead")));
    }
    if (s.directory() == null) {
      throw new InvalidSettingsException(List.of(new SettingError(at + ".directory", null, "this node's replica"
          + " directory")));
    }
    return s;
  }
}
