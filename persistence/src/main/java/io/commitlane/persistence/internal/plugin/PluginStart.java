package io.commitlane.persistence.internal.plugin;

import io.commitlane.actors.internal.pipeline.Failures;
import io.commitlane.persistence.internal.journal.EventJournal;
import io.commitlane.persistence.internal.snapshot.Snapshots;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.annotation.InternalApi;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * INTERNAL API. A plugin instance's start: its settings are read and its store is acquired once, when Pekko creates
 * the plugin; operations wait for that start and fail with its error (invalid settings, a database another process
 * holds), at once and by name, rather than the plugin failing to start and every request timing out.
 *
 * @param <T> the plugin's logic ({@link EventJournal}, {@link Snapshots}, ...)
 */
@InternalApi
public final class PluginStart<T> {
  private static final Logger LOG = LoggerFactory.getLogger(PluginStart.class);

  private final CompletionStage<PluginStores.Lease> lease;
  private final CompletableFuture<T> logic;
  private final PluginSettings settings;

  public PluginStart(ActorSystem classic, String pluginId, Function<Context, T> create) {
    this(classic, pluginId, java.util.Set.of(), create);
  }

  /** A plugin whose section may also hold {@code extraKeys} (the read journal's {@code write-plugin}). */
  public PluginStart(ActorSystem classic, String pluginId, java.util.Set<String> extraKeys, Function<Context, T> create) {
    org.apache.pekko.actor.typed.ActorSystem<?> system = Adapter.toTyped(classic);
    PluginSettings s = null;
    CompletionStage<PluginStores.Lease> l;
    try {
      s = PluginSettings.read(system.settings().config(), pluginId, extraKeys);
      l = PluginStores.get(system).acquire(s);
    } catch (RuntimeException e) {
      LOG.error("plugin {} cannot start: {}", pluginId, e.getMessage());
      l = CompletableFuture.failedFuture(e);
    }
    this.settings = s;
    this.lease = l;
    PluginSettings read = s;
    this.logic = l.thenApply(lease -> create.apply(new Context(lease.store(), new PayloadCodec((ExtendedActorSystem) classic), read,
            (ExtendedActorSystem) classic)))
        .toCompletableFuture();
  }

  /** What a plugin's logic is built from. */
  public record Context(PluginStore store, PayloadCodec codec, PluginSettings settings, ExtendedActorSystem system) {}

  /**
   * Run {@code op} once started; fails with the start's error otherwise. The stage fails with the cause itself (never
   * a {@code CompletionException} around it): Pekko hands it to the persistent actor as it is.
   */
  public <R> CompletionStage<R> with(Function<T, CompletionStage<R>> op) {
    CompletionStage<R> stage;
    if (logic.isDone() && !logic.isCompletedExceptionally()) {
      try {
        stage = op.apply(logic.join());
      } catch (Exception e) {
        return CompletableFuture.failedFuture(e);
      }
    } else {
      stage = logic.thenCompose(op);
    }
    CompletableFuture<R> result = new CompletableFuture<>();
    stage.whenComplete((r, e) -> {
      if (e == null) {
        result.complete(r);
      } else {
        result.completeExceptionally(Failures.unwrap(e));
      }
    });
    return result;
  }

  public PluginSettings settings() {
    return settings;
  }

  /** The plugin stopped: give its store back (the last one closes it). */
  public void stop() {
    lease.thenAccept(PluginStores.Lease::release);
  }
}
