package io.commitlane.actors.internal.lifecycle;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.internal.pipeline.CommitFuture;
import io.commitlane.actors.internal.pipeline.Faults;
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
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The databases open in one actor system, by canonical path: what {@link Commitlane} opens and
 * closes through. An open starts the path's {@link DatabaseSupervisor} or joins the database
 * already open (same settings, same access), or waits for a close under way to release it first;
 * each handle's release counts it out, and the last one closes it. The supervisors report back
 * here ({@link #openFailed}, {@link #stopping}, {@link #released}), which forgets the path and
 * frees it for the process ({@link PathOwners}). All state is guarded by this object.
 */
public final class OpenDatabases {
  private static final Logger LOG = LoggerFactory.getLogger(OpenDatabases.class);

  private final ActorSystem<?> system;
  private final Executor lifecycle;
  private final Map<Path, OpenDatabase> open = new HashMap<>();
  private final AtomicLong instances = new AtomicLong();
  /** Databases whose supervisor stopped without a close and whose release still runs; guarded by this. */
  private final Set<OpenDatabase> stoppedUnreleased = new java.util.HashSet<>();
  /** Guarded by this: coordinated shutdown closed the databases; new opens are refused. */
  private boolean shuttingDown;

  public OpenDatabases(ActorSystem<?> system, Executor lifecycle) {
    this.system = system;
    this.lifecycle = lifecycle;
  }

  public ActorSystem<?> system() {
    return system;
  }

  /** Where blocking lifecycle work runs: opening, releasing, checkpoints, backups, creating stores. */
  public Executor lifecycle() {
    return lifecycle;
  }

  /**
   * A new handle of the database of {@code path}: opened now, shared with the handles already
   * open, or opened again once a close under way released it (see {@link Commitlane#openAsync}).
   */
  public CompletionStage<CommitlaneDatabase> open(Path path, PipelineSettings settings, Faults faults, boolean readOnly) {
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
      closingFirst.whenComplete((done, err) -> open(path, settings, faults, readOnly).whenComplete((h, e) -> {
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

  /** See {@link Commitlane#whenReleased}. */
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

  /** A handle of {@code db} closed and drained. The last one starts the database's close. */
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
   * Close every database open in this actor system now (see {@link Commitlane#closeAll}); {@code
   * forGood} (coordinated shutdown's task) refuses new opens from now on.
   */
  public CompletionStage<Done> closeAll(boolean forGood) {
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
  public void awaitStoppedReleases() {
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
  public void released(OpenDatabase db) {
    released(db, null);
  }

  /**
   * The database's files are released; {@code closeFailure} is what went wrong releasing them (a
   * final flush that failed: acknowledged commits may be lost), or null. The handles whose close
   * waits on it fail with it then.
   */
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

  /** A stage failed with {@code e}, on the default dispatcher. */
  public <T> CompletionStage<T> failed(Throwable e) {
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
