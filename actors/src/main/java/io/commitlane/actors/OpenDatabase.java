package io.commitlane.actors;

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
final class OpenDatabase {
  final Commitlane extension;
  final Path path;
  final String name;
  final PipelineSettings settings;
  final Faults faults;
  final Executor completions;
  /** Opened with {@link io.commitlane.storage.Database#openReadOnly}: reads only. */
  final boolean readOnly;
  /** Completes (on the supervisor's thread) once the database is open and served, or fails. */
  final CompletableFuture<Pipeline> opened = new CompletableFuture<>();
  /** Completes once the database is closed and released (also after a failed open). */
  final CompletableFuture<Done> released = new CompletableFuture<>();
  volatile ActorRef<DatabaseSupervisor.Command> supervisor;
  private volatile ActorRef<DatabaseProtocol.Request> endpoint;
  /** Handles holding the database; guarded by the extension. */
  int references;
  /** The database is closing: new opens wait for {@link #released}; guarded by the extension. */
  boolean closing;
  /** Released and forgotten by the extension (done once); guarded by the extension. */
  boolean forgotten;

  OpenDatabase(Commitlane extension, Path path, String name, PipelineSettings settings, Faults faults, Executor completions,
      boolean readOnly) {
    this.extension = extension;
    this.readOnly = readOnly;
    this.path = path;
    this.name = name;
    this.settings = settings;
    this.faults = faults;
    this.completions = completions;
  }

  ActorSystem<?> system() {
    return extension.system();
  }

  ActorRef<DatabaseProtocol.Request> endpoint() {
    return endpoint;
  }

  void endpoint(ActorRef<DatabaseProtocol.Request> endpoint) {
    this.endpoint = endpoint;
  }

  /** A handle closed and drained: count it out; the stage completes once that handle's part is done. */
  CompletionStage<Done> release(CommitlaneDatabase handle) {
    return extension.release(this);
  }
}
