package io.commitlane.actors;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import com.typesafe.config.Config;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.internal.lifecycle.DatabaseNames;
import io.commitlane.actors.internal.lifecycle.DatabaseSupervisor;
import io.commitlane.actors.internal.lifecycle.OpenDatabase;
import io.commitlane.actors.internal.lifecycle.PathOwners;
import io.commitlane.actors.internal.pipeline.CommitFuture;
import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.actors.internal.protocol.DeadLetterReplies;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.NotADatabaseException;
import io.commitlane.storage.PathInUseException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
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
  private final Executor lifecycle;
  private final Map<Path, OpenDatabase> open = new HashMap<>();
  private final AtomicLong instances = new AtomicLong();
  /** Databases whose supervisor stopped without a close and whose release still runs; guarded by this. */
  private final Set<OpenDatabase> stoppedUnreleased = new java.util.HashSet<>();
  private final List<DeadLetterReplies.Rule> deadLetterRules = new CopyOnWriteArrayList<>();
  private final DeadLetterReplies deadLetters = new DeadLetterReplies();
  /** Guarded by this: coordinated shutdown closed the databases; new opens are refused. */
  private boolean shuttingDown;

  private static final class Id extends ExtensionId<Commitlane> {
    @Override
    public Commitlane createExtension(ActorSystem<?> system) {
      return new Commitlane(system);
    }
  }

  private Commitlane(ActorSystem<?> system) {
    this.system = system;
    this.lifecycle = system.dispatchers().lookup(DispatcherSelector.fromConfig(LIFECYCLE_DISPATCHER));
    system.systemActorOf(deadLetters.behavior(deadLetterRules), "commitlane-dead-letters", Props.empty());
    CoordinatedShutdown.get(system.classicSystem()).addTask(CLOSE_PHASE, "close-databases", this::shutdown);
    system.classicSystem().registerOnTermination(this::awaitStoppedReleases);
    String order = "pekko.coordinated-shutdown.phases.cluster-shutdown.depends-on";
    List<String> clusterShutdown = system.settings().config().hasPath(order) ? system.settings().config().getStringList(order) : List.of();
    if (!clusterShutdown.contains(CLOSE_PHASE)) {
      LOG.warn("pekko.coordinated-shutdown.phases.cluster-shutdown.depends-on is {} and does not name {}: another reference.conf"
          + " or application.conf replaced commitlane's, so databases may close only when the actor system terminates (failing what"
          + " is queued). Add \"{}\" to that list", clusterShutdown, CLOSE_PHASE, CLOSE_PHASE);
    }
  }

  /** Where blocking lifecycle work runs: opening, releasing, checkpoints, backups, creating stores. */
  Executor lifecycle() {
    return lifecycle;
  }

  /** The extension of {@code system} (created on first use). */
  public static Commitlane get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  @io.commitlane.annotation.InternalApi
  public ActorSystem<?> system() {
    return system;
  }

  // ---- opening ------------------------------------------------------------------------------

  /** Open {@code path} with the {@code commitlane { ... }} settings of the actor system's config. */
  public CompletionStage<CommitlaneDatabase> openAsync(Path path) {
    PipelineSettings settings;
    try {
      settings = PipelineSettings.fromConfig(system.settings().config());
    } catch (RuntimeException e) {
      return failed(e);
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
      return failed(e);
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
    return openAsync(path, settings, faults, false);
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
      return failed(e);
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
    return openAsync(path, settings, new Faults(), true);
  }

  /** {@link #openReadOnlyAsync(Path)}, waiting for it. Throws what the stage fails with. */
  public CommitlaneDatabase openReadOnly(Path path) {
    return await(openReadOnlyAsync(path));
  }

  private CompletionStage<CommitlaneDatabase> openAsync(Path path, PipelineSettings settings, Faults faults, boolean readOnly) {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(faults, "faults");
    Executor completions;
    Path key;
    try {
      completions = system.dispatchers().lookup(DispatcherSelector.fromConfig(settings.completionDispatcher()));
      key = readOnly ? existing(path) : canonical(path);
    } catch (RuntimeException e) {
      return failed(e);
    }
    CommitFuture<CommitlaneDatabase> result = new CommitFuture<>(completions);
    OpenDatabase db;
    CompletableFuture<Done> closingFirst = null;
    synchronized (this) {
      if (shuttingDown) {
        result.completeExceptionally(new DatabaseClosedException(key));
        return result;
      }
      db = open.get(key);
      if (db != null && db.closing) {
        closingFirst = db.released;
      } else if (db != null) {
        if (db.readOnly != readOnly) {
          result.completeExceptionally(new PathInUseException("database " + key + " is already open "
              + (db.readOnly ? "read-only" : "read-write") + " in this actor system; this open asked for "
              + (readOnly ? "read-only" : "read-write") + ". Use that handle, or close every handle first"));
          return result;
        }
        if (!db.settings.equals(settings)) {
          result.completeExceptionally(new PathInUseException("database " + key + " is already open in this actor system with"
              + " other settings (" + String.join("; ", differences(db.settings, settings)) + "). A database's settings are fixed"
              + " by its first open: open it with the same settings, or close every handle first"));
          return result;
        }
        db.references++;
      } else {
        try {
          PathOwners.claim(key, system);
        } catch (RuntimeException e) {
          result.completeExceptionally(e);
          return result;
        }
        db = new OpenDatabase(this, key, DatabaseNames.forActors(key), settings, faults, completions, readOnly);
        db.references = 1;
        open.put(key, db);
        start(db);
      }
    }
    if (closingFirst != null) {
      // The path's database is closing: open it again once it is released.
      closingFirst.whenComplete((done, err) -> openAsync(path, settings, faults, readOnly).whenComplete((h, e) -> {
        if (e == null) {
          result.complete(h);
        } else {
          result.completeExceptionally(unwrap(e));
        }
      }));
      return result;
    }
    OpenDatabase opening = db;
    opening.opened.whenComplete((pipeline, err) -> {
      if (err == null) {
        result.complete(new CommitlaneDatabase(opening, pipeline));
      } else {
        result.completeExceptionally(unwrap(err));
      }
    });
    return result;
  }

  private void start(OpenDatabase db) {
    try {
      db.supervisor = system.systemActorOf(DatabaseSupervisor.create(db, lifecycle),
          "commitlane-" + db.name + "-" + instances.incrementAndGet(), Props.empty());
    } catch (RuntimeException e) {
      openFailed(db, e);
    }
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
    Path key;
    try {
      key = canonical(path);
    } catch (RuntimeException e) {
      return failed(e);
    }
    OpenDatabase db;
    synchronized (this) {
      db = open.get(key);
    }
    CommitFuture<Done> result = new CommitFuture<>(system.dispatchers().lookup(DispatcherSelector.defaultDispatcher()));
    if (db == null) {
      result.complete(Done.getInstance());
    } else {
      db.released.whenComplete((d, e) -> result.complete(Done.getInstance()));
    }
    return result;
  }

  /** The canonical paths of the databases open (or opening, or closing) in this actor system. */
  public synchronized Set<Path> openPaths() {
    return new TreeSet<>(open.keySet());
  }

  // ---- closing ------------------------------------------------------------------------------

  /** A handle of {@code db} closed and drained. The last one starts the database's close. */
  @io.commitlane.annotation.InternalApi
  public CompletionStage<Done> release(OpenDatabase db) {
    synchronized (this) {
      db.references--;
      if (db.closing) {
        return db.released;
      }
      if (db.references > 0) {
        return CompletableFuture.completedFuture(Done.getInstance());
      }
      db.closing = true;
    }
    db.supervisor.tell(DatabaseSupervisor.Close.INSTANCE);
    return db.released;
  }

  /**
   * Close every database open in this actor system now: each stops admitting (its handles get
   * {@link DatabaseClosedException}), drains what it admitted and releases its files. The stage
   * completes once all are released. Later opens open them again.
   */
  public CompletionStage<Done> closeAll() {
    return closeAll(false);
  }

  /** Coordinated shutdown's task, in {@value #CLOSE_PHASE}: close everything and refuse new opens. */
  private CompletionStage<Done> shutdown() {
    return closeAll(true);
  }

  private CompletionStage<Done> closeAll(boolean forGood) {
    List<OpenDatabase> all;
    List<OpenDatabase> toClose = new ArrayList<>();
    synchronized (this) {
      shuttingDown |= forGood;
      all = new ArrayList<>(open.values());
      for (OpenDatabase db : all) {
        if (!db.closing) {
          db.closing = true;
          toClose.add(db);
        }
      }
    }
    for (OpenDatabase db : toClose) {
      db.supervisor.tell(DatabaseSupervisor.Close.INSTANCE);
    }
    if (!all.isEmpty()) {
      LOG.info("closing {} database(s) of actor system {}", all.size(), system.name());
    }
    return CompletableFuture.allOf(all.stream().map(db -> db.released).toArray(CompletableFuture[]::new))
        .thenApply(v -> Done.getInstance());
  }

  /**
   * The supervisor stopped without a close: the database is released on a thread of its own from
   * now on. New opens of the path wait for that ({@link OpenDatabase#released}), and the actor
   * system's termination does too ({@link #awaitStoppedReleases}).
   */
  @io.commitlane.annotation.InternalApi
  public void stopping(OpenDatabase db) {
    synchronized (this) {
      db.closing = true;
      stoppedUnreleased.add(db);
    }
    db.released.whenComplete((done, err) -> {
      synchronized (this) {
        stoppedUnreleased.remove(db);
      }
    });
  }

  /**
   * Run when the actor system has terminated, before its termination completes: wait (up to a
   * minute each) for the releases that stopped supervisors handed to threads of their own, so
   * that a terminated system holds no database files. Nothing else runs on the system by then.
   */
  private void awaitStoppedReleases() {
    List<OpenDatabase> pending;
    synchronized (this) {
      pending = new ArrayList<>(stoppedUnreleased);
    }
    for (OpenDatabase db : pending) {
      try {
        db.released.get(1, java.util.concurrent.TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        LOG.warn("database {} was not released within a minute of the actor system's termination", db.path, e);
      }
    }
  }

  /** The supervisor released the database (or stopped without it): forget it, free the path. Idempotent. */
  @io.commitlane.annotation.InternalApi
  public void released(OpenDatabase db) {
    released(db, null);
  }

  /**
   * The database's files are released; {@code closeFailure} is what went wrong releasing them (a
   * final flush that failed: acknowledged commits may be lost), or null. The handles whose close
   * waits on it fail with it then.
   */
  @io.commitlane.annotation.InternalApi
  public void released(OpenDatabase db, Throwable closeFailure) {
    synchronized (this) {
      if (db.forgotten) {
        return; // a later entry of the same path may hold the claim now
      }
      db.forgotten = true;
      open.remove(db.path, db);
      PathOwners.release(db.path, system);
    }
    db.opened.completeExceptionally(new DatabaseClosedException(db.path)); // no-op once opened
    if (closeFailure == null) {
      db.released.complete(Done.getInstance());
    } else {
      db.released.completeExceptionally(closeFailure);
    }
  }

  /** The open failed: the handles waiting for it fail with {@code cause}. */
  @io.commitlane.annotation.InternalApi
  public void openFailed(OpenDatabase db, Throwable cause) {
    // Forgotten before the failure is seen, so an open retried right away is a fresh one.
    synchronized (this) {
      if (!db.forgotten) {
        db.forgotten = true;
        open.remove(db.path, db);
        PathOwners.release(db.path, system);
      }
    }
    db.opened.completeExceptionally(cause);
    db.released.complete(Done.getInstance());
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

  private <T> CompletionStage<T> failed(Throwable e) {
    CommitFuture<T> f = new CommitFuture<>(system.dispatchers().lookup(DispatcherSelector.defaultDispatcher()));
    f.completeExceptionally(e);
    return f;
  }

  /** As the storage registry keys paths: absolute, normalized, links resolved (created if missing). */
  private static Path canonical(Path path) {
    try {
      Path abs = path.toAbsolutePath().normalize();
      Files.createDirectories(abs);
      return abs.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resolve database path " + path, e);
    }
  }

  /** As {@link #canonical}, for a read-only open: the directory must exist, and nothing is created. */
  private static Path existing(Path path) {
    Path abs = path.toAbsolutePath().normalize();
    if (!Files.isDirectory(abs)) {
      throw new NotADatabaseException("open read-only", abs, "there is no directory there");
    }
    try {
      return abs.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resolve database path " + path, e);
    }
  }

  /** "name: open with a, asked for b" for each setting that differs (records compare component by component). */
  static List<String> differences(Object have, Object wanted) {
    List<String> out = new ArrayList<>();
    if (have.getClass().isRecord() && have.getClass() == wanted.getClass()) {
      for (java.lang.reflect.RecordComponent c : have.getClass().getRecordComponents()) {
        try {
          Object a = c.getAccessor().invoke(have);
          Object b = c.getAccessor().invoke(wanted);
          if (!Objects.equals(a, b)) {
            out.addAll(a != null && b != null && a.getClass().isRecord() && a.getClass() == b.getClass()
                ? differences(a, b).stream().map(d -> c.getName() + "." + d).toList()
                : List.of(c.getName() + ": open with " + a + ", asked for " + b));
          }
        } catch (ReflectiveOperationException e) {
          out.add(c.getName() + " (unreadable: " + e + ")");
        }
      }
    }
    if (out.isEmpty() && !Objects.equals(have, wanted)) {
      out.add("open with " + have + ", asked for " + wanted);
    }
    return out;
  }
}
