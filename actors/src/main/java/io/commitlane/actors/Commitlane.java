package io.commitlane.actors;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import com.typesafe.config.Config;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.internal.lifecycle.OpenDatabases;
import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.actors.internal.protocol.DeadLetterReplies;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.NotADatabaseException;
import io.commitlane.storage.PathInUseException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The databases of one actor system: opens them, shares each path's database among its handles,
 * and closes them.
 *
 * <pre>{@code
 * Commitlane commitlane = Commitlane.get(system);
 * commitlane.openAsync(Path.of("data/orders"))            // replay runs on the lifecycle dispatcher
 *     .thenAccept(db -> orders.tell(new Start(db.ref())));  // the database's reference: DatabaseProtocol
 * }</pre>
 *
 * <ul>
 *   <li><b>One database per path per actor system.</b> Every open of a path returns a new handle
 *       of the same database: one supervisor actor ({@code /system/commitlane-<db>-<n>}) with at
 *       most {@code commit-threads} commit executors, the transaction-log actor and the database's
 *       protocol actor as its children. The database closes when its last handle closes. A later
 *       open with other settings, and an open from a second actor system of the same process, are
 *       refused with {@link PathInUseException}.
 *   <li><b>Opening</b> never blocks the caller of {@link #openAsync}: the storage open and the
 *       transaction-log replay run on {@code commitlane.lifecycle-dispatcher}. {@link #open} waits
 *       for it (plain Java callers; an actor uses {@link #openAsync} and {@code pipeToSelf}).
 *   <li><b>Shutdown.</b> Coordinated shutdown closes (drains) every open database in its own phase,
 *       {@value #CLOSE_PHASE}, after the cluster's exit and before the actor system terminates. A
 *       database still open when its supervisor stops (the system terminating past that phase's
 *       timeout) fails what is queued and releases its files at once.
 *   <li><b>Replies after a stop.</b> A {@link DatabaseProtocol.Request} that reaches a database
 *       actor after it stopped (or was left in its mailbox) goes to the dead letters; this extension
 *       answers it with {@link DatabaseProtocol.FailureReason#DATABASE_CLOSED}, so every request
 *       gets its reply. It answers for the protocol actors of its supervisors, for the last
 *       65,536 {@link DatabaseActor}s started in this system, and for the paths registered with
 *       {@link #answerDeadLetters}.
 * </ul>
 */
public final class Commitlane implements Extension {
  private static final Logger LOG = LoggerFactory.getLogger(Commitlane.class);
  /** The coordinated-shutdown phase that closes the databases (defined in {@code reference.conf}). */
  public static final String CLOSE_PHASE = "commitlane-close-databases";
  /** The dispatcher of blocking lifecycle work: opening (replay) and releasing databases. */
  public static final String LIFECYCLE_DISPATCHER = "commitlane.lifecycle-dispatcher";

  private static final Id ID = new Id();

  private final ActorSystem<?> system;
  private final OpenDatabases databases;
  private final List<DeadLetterReplies.Rule> deadLetterRules = new CopyOnWriteArrayList<>();
  private final DeadLetterReplies deadLetters = new DeadLetterReplies();

  private static final class Id extends ExtensionId<Commitlane> {
    @Override
    public Commitlane createExtension(ActorSystem<?> system) {
      return new Commitlane(system);
    }
  }

  private Commitlane(ActorSystem<?> system) {
    this.system = system;
    this.databases = new OpenDatabases(system, system.dispatchers().lookup(DispatcherSelector.fromConfig(LIFECYCLE_DISPATCHER)));
    system.systemActorOf(deadLetters.behavior(deadLetterRules), "commitlane-dead-letters", Props.empty());
    java.util.function.Supplier<CompletionStage<Done>> closeForGood = () -> databases.closeAll(true);
    CoordinatedShutdown.get(system.classicSystem()).addTask(CLOSE_PHASE, "close-databases", closeForGood);
    system.classicSystem().registerOnTermination(databases::awaitStoppedReleases);
    String order = "pekko.coordinated-shutdown.phases.cluster-shutdown.depends-on";
    List<String> clusterShutdown = system.settings().config().hasPath(order) ? system.settings().config().getStringList(order) : List.of();
    if (!clusterShutdown.contains(CLOSE_PHASE)) {
      LOG.warn("pekko.coordinated-shutdown.phases.cluster-shutdown.depends-on is {} and does not name {}: another reference.conf"
          + " or application.conf replaced commitlane's, so databases may close only when the actor system terminates (failing what"
          + " is queued). Add \"{}\" to that list", clusterShutdown, CLOSE_PHASE, CLOSE_PHASE);
    }
  }

  /** The extension of {@code system} (created on first use). */
  public static Commitlane get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  // ---- opening ------------------------------------------------------------------------------

  /** Open {@code path} with the {@code commitlane { ... }} settings of the actor system's config. */
  public CompletionStage<CommitlaneDatabase> openAsync(Path path) {
    PipelineSettings settings;
    try {
      settings = PipelineSettings.fromConfig(system.settings().config());
    } catch (RuntimeException e) {
      return databases.failed(e);
    }
    return openAsync(path, settings);
  }

  /**
   * Open {@code path} with the {@code commitlane { ... }} settings of {@code config}, falling back
   * to the actor system's config for keys it does not set. Unknown keys and bad values fail the
   * stage with {@link io.commitlane.storage.InvalidSettingsException}, naming them.
   */
  public CompletionStage<CommitlaneDatabase> openAsync(Path path, Config config) {
    PipelineSettings settings;
    try {
      settings = PipelineSettings.fromConfig(config.withFallback(system.settings().config()));
    } catch (RuntimeException e) {
      return databases.failed(e);
    }
    return openAsync(path, settings);
  }

  /**
   * Open {@code path}: a new handle of the path's database, opened now or shared with the handles
   * already open. The stage completes on the completion dispatcher once the database is open
   * (after its replay), or fails with {@link PathInUseException} (other settings than the
   * database's, or another actor system holds it), {@link io.commitlane.storage.StorageException},
   * or the log's recovery error.
   */
  public CompletionStage<CommitlaneDatabase> openAsync(Path path, PipelineSettings settings) {
    return openAsync(path, settings, new Faults());
  }

  CompletionStage<CommitlaneDatabase> openAsync(Path path, PipelineSettings settings, Faults faults) {
    return databases.open(path, settings, faults, false);
  }

  /**
   * Open an existing database read-only, with the {@code commitlane { ... }} settings of the
   * actor system's config: see {@link #openReadOnlyAsync(Path, PipelineSettings)}.
   */
  public CompletionStage<CommitlaneDatabase> openReadOnlyAsync(Path path) {
    PipelineSettings settings;
    try {
      settings = PipelineSettings.fromConfig(system.settings().config());
    } catch (RuntimeException e) {
      return databases.failed(e);
    }
    return openReadOnlyAsync(path, settings);
  }

  /**
   * Open an existing database read-only ({@link io.commitlane.storage.Database#openReadOnly}): a
   * handle that reads, scans, counts and reports stats, also through its {@link
   * CommitlaneDatabase#ref()}, and refuses every write. It takes no lock, replays no transaction
   * log and writes no file, so it may sit beside a process that has the database open (it sees
   * the data as of this open) and can look at a restored backup before it goes into service.
   * Every read-only open of the path in this actor system shares one database, as read-write opens
   * do; no executor thread is started for it. The stage fails with {@link
   * io.commitlane.storage.NotADatabaseException} where there is no database, and with {@link
   * PathInUseException} while the path is open read-write in this actor system or process.
   */
  public CompletionStage<CommitlaneDatabase> openReadOnlyAsync(Path path, PipelineSettings settings) {
    return databases.open(path, settings, new Faults(), true);
  }

  /** {@link #openReadOnlyAsync(Path)}, waiting for it. Throws what the stage fails with. */
  public CommitlaneDatabase openReadOnly(Path path) {
    return await(openReadOnlyAsync(path));
  }

  /** {@link #openAsync(Path)}, waiting for it. Throws what the stage fails with. */
  public CommitlaneDatabase open(Path path) {
    return await(openAsync(path));
  }

  /** {@link #openAsync(Path, PipelineSettings)}, waiting for it. Throws what the stage fails with. */
  public CommitlaneDatabase open(Path path, PipelineSettings settings) {
    return await(openAsync(path, settings));
  }

  /** {@link #openAsync(Path, Config)}, waiting for it. Throws what the stage fails with. */
  public CommitlaneDatabase open(Path path, Config config) {
    return await(openAsync(path, config));
  }

  /**
   * Completes once the database of {@code path} is closed and its files released in this actor
   * system (at once if it is not open): for instance after stopping the last {@link
   * DatabaseActor} of the path, whose handle closes in the background, before destroying or
   * copying its files.
   */
  public CompletionStage<Done> whenReleased(Path path) {
    return databases.whenReleased(path);
  }

  /** The canonical paths of the databases open (or opening, or closing) in this actor system. */
  public Set<Path> openPaths() {
    return databases.openPaths();
  }

  // ---- closing ------------------------------------------------------------------------------

  /**
   * Close every database open in this actor system now: each stops admitting (its handles get
   * {@link DatabaseClosedException}), drains what it admitted and releases its files. The stage
   * completes once all are released. Later opens open them again.
   */
  public CompletionStage<Done> closeAll() {
    return databases.closeAll(false);
  }

  // ---- dead letters -------------------------------------------------------------------------

  /**
   * Answer requests that reached a stopped actor under {@code recipientPathPrefix} (its path
   * without address, e.g. {@code /system/sharding/commitlane-database/}) with {@code reply}
   * instead of the default {@link DatabaseProtocol.FailureReason#DATABASE_CLOSED}: for database
   * implementations whose stop means something else (a sharded database moving to another node).
   */
  public void answerDeadLetters(String recipientPathPrefix, Refusal reply) {
    deadLetterRules.add(0, new DeadLetterReplies.Rule(Objects.requireNonNull(recipientPathPrefix), Objects.requireNonNull(reply)));
  }

  /** A database actor started: requests that reach it after it stopped are answered from the dead letters. */
  void rememberDatabaseActor(org.apache.pekko.actor.typed.ActorRef<?> actor) {
    deadLetters.remember(actor.path().toStringWithoutAddress());
  }

  /** A database actor stops because its open failed: requests that reach it afterwards are refused with {@code why}. */
  void databaseActorOpenFailed(org.apache.pekko.actor.typed.ActorRef<?> actor, Refusal why) {
    deadLetters.openFailed(actor.path().toStringWithoutAddress(), why);
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** Wait for an open and throw what it failed with, unwrapped. */
  static CommitlaneDatabase await(CompletionStage<CommitlaneDatabase> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }
}
