package io.commitlane.persistence;

import com.typesafe.config.Config;
import io.commitlane.persistence.internal.state.DurableStates;
import io.commitlane.persistence.internal.plugin.PluginStart;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.persistence.state.DurableStateStoreProvider;

/** The durable-state store plugin ({@code commitlane-persistence.state}); Pekko creates it. */
public final class CommitlaneDurableStateStoreProvider implements DurableStateStoreProvider {
  private final io.commitlane.persistence.javadsl.CommitlaneDurableStateStore<Object> java;
  private final io.commitlane.persistence.scaladsl.CommitlaneDurableStateStore<Object> scala;

  public CommitlaneDurableStateStoreProvider(ExtendedActorSystem system, Config config, String configPath) {
    PluginStart<DurableStates> start = new PluginStart<>(system, configPath,
        c -> new DurableStates(c.store(), c.codec(), c.settings().pageSize()));
    this.java = new io.commitlane.persistence.javadsl.CommitlaneDurableStateStore<>(start);
    this.scala = new io.commitlane.persistence.scaladsl.CommitlaneDurableStateStore<>(java);
  }

  @Override
  public io.commitlane.persistence.scaladsl.CommitlaneDurableStateStore<Object> scaladslDurableStateStore() {
    return scala;
  }

  @Override
  public io.commitlane.persistence.javadsl.CommitlaneDurableStateStore<Object> javadslDurableStateStore() {
    return java;
  }
}
