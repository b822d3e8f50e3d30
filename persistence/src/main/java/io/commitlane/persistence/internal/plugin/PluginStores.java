package io.commitlane.persistence.internal.plugin;

import io.commitlane.persistence.internal.journal.EventJournal;
import io.commitlane.persistence.internal.store.LocalPluginStore;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.store.PluginStoreFactory;
import com.typesafe.config.Config;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.internal.pipeline.Failures;
import io.commitlane.annotation.InternalApi;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * INTERNAL API. The plugins' databases of one actor system: every plugin instance configured with the same path shares
 * one {@link PluginStore} (one database handle, one commit-position clock), opened by the first plugin that starts and
 * closed when the last one stops.
 *
 * <p><b>Shutdown.</b> Coordinated shutdown drains them in phase {@value #DRAIN_PHASE}, before commitlane closes its
 * databases: new writes are refused, the writes started finish (their persist handlers run), then the handle closes.
 */
@InternalApi
public final class PluginStores implements Extension {
  private static final Logger LOG = LoggerFactory.getLogger(PluginStores.class);
  /** Runs before commitlane's own {@code commitlane-close-databases}, which depends on it. */
  public static final String DRAIN_PHASE = CoordinatedShutdown.PhaseClusterExitingDone();
  private static final Id ID = new Id();

  private final ActorSystem<?> system;
  /** Guarded by this. */
  private final Map<Object, Shared> open = new HashMap<>();
  private boolean shutDown;

  private static final class Shared {
    final PluginSettings settings;
    final CompletableFuture<PluginStore> opened = new CompletableFuture<>();
    int leases;

    Shared(PluginSettings settings) {
      this.settings = settings;
    }
  }

  /** A plugin's use of a shared store: {@link #release()} it when the plugin stops. */
  public interface Lease {
    PluginStore store();

    CompletionStage<Done> release();
  }

  private static final class Id extends ExtensionId<PluginStores> {
    @Override
    public PluginStores createExtension(ActorSystem<?> system) {
      return new PluginStores(system);
    }
  }

  public static PluginStores get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  private PluginStores(ActorSystem<?> system) {
    this.system = system;
    CoordinatedShutdown.get(system.classicSystem()).addTask(DRAIN_PHASE, "commitlane-persistence-drain", this::drainAll);
  }

  /** Where {@code settings}' plugin runs its blocking work. */
  public Executor executor(PluginSettings settings) {
    return system.dispatchers().lookup(DispatcherSelector.fromConfig(settings.dispatcher()));
  }

  /**
   * The store of {@code settings.path()}, opened now or shared. Fails with the open's error (a path another
   * process holds: {@link io.commitlane.storage.PathInUseException} or the storage error naming it), or when a
   * plugin already uses the path with another transaction log.
   */
  public CompletionStage<Lease> acquire(PluginSettings settings) {
    Shared shared;
    boolean first = false;
    synchronized (this) {
      if (shutDown) {
        return CompletableFuture.failedFuture(new io.commitlane.storage.DatabaseClosedException(
            settings.path() != null ? settings.path() : Path.of(settings.pluginId())));
      }
      shared = open.get(settings.storeKey());
      if (shared == null) {
        shared = new Shared(settings);
        open.put(settings.storeKey(), shared);
        first = true;
      } else if (settings.replicated() != null) {
        // The same replicated section: the same replica, nothing else to agree on.
      } else if (shared.settings.wal() != settings.wal() || shared.settings.durability() != settings.durability()) {
        return CompletableFuture.failedFuture(new IllegalStateException("plugin " + settings.pluginId() + " asks for wal = "
            + (settings.wal() ? "on" : "off") + ", durability = " + settings.durability().name().toLowerCase(java.util.Locale.ROOT)
            + " on database " + settings.path() + ", which plugin " + shared.settings.pluginId() + " opened with wal = "
            + (shared.settings.wal() ? "on" : "off") + ", durability = "
            + shared.settings.durability().name().toLowerCase(java.util.Locale.ROOT) + ": plugins sharing a database share its"
            + " settings; give them the same ones (set them once under commitlane-persistence)"));
      } else if (!Objects.equals(shared.settings.log(), settings.log())) {
        return CompletableFuture.failedFuture(new IllegalStateException("plugin " + settings.pluginId() + " appends to"
            + " transaction log " + describeLog(settings.log()) + " but plugin " + shared.settings.pluginId() + " uses "
            + describeLog(shared.settings.log()) + " on the same database " + settings.path() + ": plugins sharing a"
            + " database share its log; give them the same log setting"));
      }
      shared.leases++;
    }
    if (first) {
      open(shared);
    }
    Shared s = shared;
    return shared.opened.thenApply(store -> new Lease() {
      private boolean released;

      @Override
      public PluginStore store() {
        return store;
      }

      @Override
      public synchronized CompletionStage<Done> release() {
        if (released) {
          return CompletableFuture.completedFuture(Done.getInstance());
        }
        released = true;
        return PluginStores.this.release(s);
      }
    });
  }

  private static String describeLog(String log) {
    return log == null ? "(none)" : "\"" + log + "\"";
  }

  private void open(Shared shared) {
    PluginSettings settings = shared.settings;
    Executor executor = executor(settings);
    CompletionStage<PluginStore> opening;
    if (settings.replicated() != null) {
      opening = replicatedFactory(settings).thenCompose(f -> f.open(settings, system, executor));
    } else {
      Config config = settings.databaseConfig(system.settings().config());
      opening = Commitlane.get(system).openAsync(settings.path(), config)
          .thenCompose(db -> db.createStore(LocalPluginStore.STORE)
              .<PluginStore>thenApplyAsync(store -> new LocalPluginStore(db, store, settings.log(), executor), executor)
              .whenComplete((store, e) -> {
                if (e != null) {
                  db.closeAsync();
                }
              }));
    }
    opening
        .whenComplete((store, e) -> {
          if (e == null) {
            shared.opened.complete(store);
          } else {
            synchronized (this) {
              open.remove(settings.storeKey(), shared);
            }
            Throwable cause = Failures.unwrap(e);
            LOG.error("plugin {} could not open its database {}: {}", settings.pluginId(),
                settings.replicated() != null ? "(replicated)" : settings.path(), cause.toString());
            shared.opened.completeExceptionally(cause);
          }
        });
  }

  /**
   * The factory of replicated stores, found on the class path ({@code commitlane-persistence-replicated}), so that this
   * module does not depend on the replication module for local users.
   */
  private static CompletionStage<PluginStoreFactory> replicatedFactory(PluginSettings settings) {
    for (PluginStoreFactory f : java.util.ServiceLoader.load(PluginStoreFactory.class, PluginStores.class.getClassLoader())) {
      return CompletableFuture.completedFuture(f);
    }
    return CompletableFuture.failedFuture(new io.commitlane.storage.InvalidSettingsException(List.of(
        new io.commitlane.storage.InvalidSettingsException.SettingError(settings.pluginId() + ".replicated", null, "needs the module"
            + " commitlane-persistence-replicated on the class path (add the dependency io.commitlane:"
            + "commitlane-persistence-replicated), or remove the section to use a local database"))));
  }

  private CompletionStage<Done> release(Shared shared) {
    synchronized (this) {
      if (--shared.leases > 0 || open.get(shared.settings.storeKey()) != shared) {
        return CompletableFuture.completedFuture(Done.getInstance());
      }
      open.remove(shared.settings.storeKey());
    }
    return shared.opened.thenCompose(PluginStore::close).exceptionally(e -> Done.getInstance());
  }

  /** Refuse new writes, let started ones finish, close every database (coordinated shutdown; tests). */
  public CompletionStage<Done> drainAll() {
    List<Shared> all;
    synchronized (this) {
      shutDown = true;
      all = new ArrayList<>(open.values());
      open.clear();
    }
    List<CompletableFuture<Done>> closing = new ArrayList<>();
    for (Shared s : all) {
      closing.add(s.opened.thenCompose(PluginStore::close).exceptionally(e -> Done.getInstance()).toCompletableFuture());
    }
    return CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0])).thenApply(v -> Done.getInstance());
  }
}
