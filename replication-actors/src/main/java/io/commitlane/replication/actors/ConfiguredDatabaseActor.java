package io.commitlane.replication.actors;

import com.typesafe.config.Config;
import io.commitlane.actors.DatabaseActor;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.replication.ReadConsistency;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicationGroup;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;

/**
 * A database actor chosen by configuration: the same {@code ActorRef<DatabaseProtocol.Request>}
 * for a local database ({@link DatabaseActor}) or a replicated one ({@link
 * ReplicatedDatabaseActor}), on a node that hosts a replica or holds only a client. A service
 * switches between them by changing its settings, not its code.
 *
 * <pre>{@code
 * commitlane.database {
 *   kind = replicated                 # or local
 *   path = "data/orders"              # kind = local: the database's directory
 *   replicated {
 *     database = orders               # the replicated database's name
 *     voters = ["n1=10.0.0.1:7001", "n2=10.0.0.2:7001", "n3=10.0.0.3:7001"]
 *     listeners = []
 *     node = client                   # client: no replica here; or this node's id to host one
 *     directory = "data/replica"      # node = an id: this node's replica directory
 *     reads = linearizable            # or local (needs a replica on this node)
 *     max-page-bytes = 4 MiB
 *   }
 * }
 * }</pre>
 *
 * <p>The local database takes its {@code commitlane { ... }} settings from the same config; a
 * hosted replica its {@code commitlane.replication { ... }} settings, and a client its {@code
 * commitlane.replication.request-timeout}. Every key is checked at once: an unknown key, a
 * missing one or a bad value is an {@link InvalidSettingsException} from {@link #create}, naming
 * each.
 *
 * <p>A replicated database is opened (the client connected, or the node started and its replica
 * hosted) on Pekko's blocking-I/O dispatcher, never on the actor's; requests that arrive
 * meanwhile wait, up to {@value #WAITING} of them (more are refused {@code OVERLOADED}). If the
 * open fails, what waits is refused {@code DATABASE_CLOSED} with the cause, and the actor fails
 * with it. Stopping the actor closes what it opened.
 */
public final class ConfiguredDatabaseActor {
  /** Where the settings live in the config. */
  public static final String PATH = "commitlane.database";
  /** Requests held while a replicated database opens. */
  static final int WAITING = 10_000;
  private static final String CLIENT = ReplicatedDatabaseSettings.CLIENT;
  private static final Set<String> KEYS = Set.of("kind", "path", "replicated");

  private ConfiguredDatabaseActor() {}

  /** The actor's own messages: the replicated database opened, or could not be. */
  private sealed interface Internal extends DatabaseProtocol.Command permits Opened, OpenFailed {}

  private record Opened(ReplicatedDatabase database, AutoCloseable owned) implements Internal {}

  private record OpenFailed(Throwable cause) implements Internal {}

  /** The settings of {@code commitlane.database}, read and checked. */
  private record Settings(Path path, ReplicationGroup group, String node, Path directory, ReplicatedActorSettings actor) {}

  /**
   * The database actor the {@code commitlane.database} block of {@code config} describes.
   *
   * @throws InvalidSettingsException naming every key that is missing, unknown or out of range
   */
  public static Behavior<Request> create(Config config) {
    Objects.requireNonNull(config, "config");
    Settings s = read(config);
    if (s.path() != null) {
      return DatabaseActor.create(s.path(), config);
    }
    Behavior<DatabaseProtocol.Command> b = Behaviors.setup(context -> {
      ActorRef<DatabaseProtocol.Command> self = context.getSelf();
      Config all = config.withFallback(context.getSystem().settings().config());
      AtomicBoolean stopped = new AtomicBoolean();
      CompletableFuture.supplyAsync(() -> open(s, all), context.getSystem().dispatchers().lookup(DispatcherSelector.blocking()))
          .whenComplete((opened, error) -> {
            if (error != null) {
              self.tell(new OpenFailed(error.getCause() == null ? error : error.getCause()));
            } else if (stopped.get()) {
              closeQuietly(opened.owned()); // the actor stopped while it opened
            } else {
              self.tell(opened);
            }
          });
      return Behaviors.withStash(WAITING, stash -> opening(context, stash, s, stopped));
    });
    return b.narrow();
  }

  private static Opened open(Settings s, Config config) {
    Duration timeout = ReplicaNodeSettings.fromConfig(new ReplicaPeer("client", "localhost", 1), Path.of("."), config).requestTimeout();
    if (s.node().equals(CLIENT)) {
      ReplicatedDatabase client = ReplicatedDatabase.connect(s.group(), timeout);
      return new Opened(client, client);
    }
    ReplicaPeer self = member(s.group(), s.node());
    ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.fromConfig(self, s.directory(), config));
    try {
      return new Opened(node.host(s.group()), node);
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
  }

  private static ReplicaPeer member(ReplicationGroup group, String id) {
    List<ReplicaPeer> all = new ArrayList<>(group.voters());
    all.addAll(group.listeners());
    return all.stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow();
  }

  private static Behavior<DatabaseProtocol.Command> opening(ActorContext<DatabaseProtocol.Command> context,
      StashBuffer<DatabaseProtocol.Command> stash, Settings s, AtomicBoolean stopped) {
    return Behaviors.receive(DatabaseProtocol.Command.class)
        .onMessage(Request.class, r -> {
          if (stash.isFull()) {
            r.answer(new Failed(FailureReason.OVERLOADED, "replicated database '" + s.group().database() + "' is opening and "
                + stash.capacity() + " requests wait for it; nothing was written. Retry later", true));
          } else {
            stash.stash(r);
          }
          return Behaviors.same();
        })
        .onMessage(Opened.class, o -> {
          if (stopped.get()) {
            closeQuietly(o.owned());
            return Behaviors.stopped();
          }
          ActorRef<Request> served = context.spawn(ReplicatedDatabaseActor.create(o.database(), s.actor()), "replicated");
          return stash.unstashAll(serving(served, o.owned()));
        })
        .onMessage(OpenFailed.class, f -> {
          Failed why = new Failed(FailureReason.DATABASE_CLOSED, "replicated database '" + s.group().database()
              + "' could not be opened, so its database actor stopped: " + f.cause() + ". Nothing was written; fix the cause"
              + " and start the actor again", false);
          stash.forEach(c -> {
            if (c instanceof Request r) {
              r.answer(why);
            }
          });
          stash.clear();
          if (f.cause() instanceof RuntimeException e) {
            throw e;
          }
          throw new IllegalStateException("cannot open replicated database '" + s.group().database() + "'", f.cause());
        })
        .onSignal(PostStop.class, stop -> {
          // Stopped while opening: what waits is answered, and an open that finishes later closes itself.
          stopped.set(true);
          Failed why = new Failed(FailureReason.DATABASE_CLOSED, "the database actor of replicated database '"
              + s.group().database() + "' stopped while it opened; nothing was written", false);
          stash.forEach(c -> {
            if (c instanceof Request r) {
              r.answer(why);
            }
          });
          stash.clear();
          return Behaviors.same();
        })
        .build();
  }

  private static Behavior<DatabaseProtocol.Command> serving(ActorRef<Request> served, AutoCloseable owned) {
    return Behaviors.receive(DatabaseProtocol.Command.class)
        .onMessage(Request.class, r -> {
          served.tell(r);
          return Behaviors.same();
        })
        .onSignal(PostStop.class, stop -> {
          closeQuietly(owned); // a client's connections, or the node and its replica
          return Behaviors.same();
        })
        .build();
  }

  private static void closeQuietly(AutoCloseable owned) {
    try {
      owned.close();
    } catch (Exception e) {
      // closing releases connections and files; the actor is gone either way
    }
  }

  // ---- settings -------------------------------------------------------------------------------

  private static Settings read(Config config) {
    List<SettingError> errors = new ArrayList<>();
    if (!config.hasPath(PATH)) {
      throw new InvalidSettingsException(List.of(new SettingError(PATH, null,
          "missing: give kind = local with a path, or kind = replicated with a replicated { ... } block")));
    }
    Config c = config.getConfig(PATH);
    ReplicatedDatabaseSettings.unknown(c, KEYS, PATH, errors);
    String kind = ReplicatedDatabaseSettings.get(errors, PATH + ".kind", () -> c.getString("kind").toLowerCase(Locale.ROOT));
    if ("local".equals(kind)) {
      String path = ReplicatedDatabaseSettings.get(errors, PATH + ".path", () -> c.getString("path"));
      if (path != null && path.isBlank()) {
        errors.add(new SettingError(PATH + ".path", path, "the database's directory"));
      }
      check(errors);
      return new Settings(Path.of(path), null, null, null, null);
    }
    if (kind != null && !"replicated".equals(kind)) {
      errors.add(new SettingError(PATH + ".kind", kind, "local or replicated"));
    }
    String at = PATH + ".replicated";
    Config r = ReplicatedDatabaseSettings.get(errors, at, () -> c.getConfig("replicated"));
    if (r == null) {
      check(errors);
    }
    ReplicatedDatabaseSettings replicated = ReplicatedDatabaseSettings.read(r, at, errors);
    check(errors);
    return new Settings(null, replicated.group(), replicated.node(), replicated.directory(), replicated.actor());
  }

  private static void check(List<SettingError> errors) {
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }
}
