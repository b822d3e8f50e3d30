package io.commitlane.actors.internal.lifecycle;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.actors.internal.pipeline.Pipeline;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * One database path open in one actor system: its settings, its supervisor, the pipeline they
 * share once opened, and the number of handles holding it. The last handle's release closes it.
 */
public final class OpenDatabase {
  public final OpenDatabases databases;
  public final Path path;
  public final String name;
  public final PipelineSettings settings;
  final Faults faults;
  final Executor completions;
  /** Opened with {@link io.commitlane.storage.Database#openReadOnly}: reads only. */
  public final boolean readOnly;
  /** Completes (on the supervisor's thread) once the database is open and served, or fails. */
  public final CompletableFuture<Pipeline> opened = new CompletableFuture<>();
  /** Completes once the database is closed and released (also after a failed open). */
  public final CompletableFuture<Done> released = new CompletableFuture<>();
  public volatile ActorRef<DatabaseSupervisor.Command> supervisor;
  private volatile ActorRef<DatabaseProtocol.Request> endpoint;
  /** Handles holding the database; guarded by OpenDatabases. */
  public int references;
  /** The database is closing: new opens wait for {@link #released}; guarded by OpenDatabases. */
  public boolean closing;
  /** Released and forgotten by OpenDatabases (done once); guarded by OpenDatabases. */
  public boolean forgotten;

  public OpenDatabase(OpenDatabases databases, Path path, String name, PipelineSettings settings, Faults faults, Executor completions,
      boolean readOnly) {
    this.databases = databases;
    this.readOnly = readOnly;
    this.path = path;
    this.name = name;
    this.settings = settings;
    this.faults = faults;
    this.completions = completions;
  }

  public ActorSystem<?> system() {
    return databases.system();
  }

  public ActorRef<DatabaseProtocol.Request> endpoint() {
    return endpoint;
  }

  public void endpoint(ActorRef<DatabaseProtocol.Request> endpoint) {
    this.endpoint = endpoint;
  }

  /** A handle closed and drained: count it out. Completes at once while other handles hold the database; the last handle's release closes it and completes once it is released. */
  public CompletionStage<Done> release() {
    return databases.release(this);
  }
}
