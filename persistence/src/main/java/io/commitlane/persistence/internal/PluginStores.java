package io.commitlane.persistence.internal;

import com.typesafe.config.Config;
import io.commitlane.actors.Commitlane;
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
  private final Map<Path, Shared> open = new HashMap<>();
  private boolean shutDown;

  private static final class Shared {
    final PluginSettings settings;
    final CompletableFuture<LocalPluginStore> opened = new CompletableFuture<>();
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
        return CompletableFuture.failedFuture(new io.commitlane.storage.DatabaseClosedException(settings.path()));
      }
      shared = open.get(settings.path());
      if (shared == null) {
        shared = new Shared(settings);
        open.put(settings.path(), shared);
        first = true;
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
    Config config = settings.databaseConfig(system.settings().config());
    Commitlane.get(system).openAsync(settings.path(), config)
        .thenCompose(db -> db.createStore(LocalPluginStore.STORE)
            .thenApplyAsync(store -> new LocalPluginStore(db, store, settings.log(), executor), executor)
            .whenComplete((store, e) -> {
              if (e != null) {
                db.closeAsync();
              }
            }))
        .whenComplete((store, e) -> {
          if (e == null) {
            shared.opened.complete(store);
          } else {
            synchronized (this) {
              open.remove(settings.path(), shared);
            }
            Throwable cause = EventJournal.unwrap(e);
            LOG.error("plugin {} could not open its database {}: {}", settings.pluginId(), settings.path(), cause.toString());
            shared.opened.completeExceptionally(cause);
          }
        });
  }

  private CompletionStage<Done> release(Shared shared) {
    synchronized (this) {
      if (--shared.leases > 0 || open.get(shared.settings.path()) != shared) {
        return CompletableFuture.completedFuture(Done.getInstance());
      }
      open.remove(shared.settings.path());
    }
    return shared.opened.thenCompose(LocalPluginStore::close).exceptionally(e -> Done.getInstance());
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
      closing.add(s.opened.thenCompose(LocalPluginStore::close).exceptionally(e -> Done.getInstance()).toCompletableFuture());
    }
    return CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0])).thenApply(v -> Done.getInstance());
  }
}
