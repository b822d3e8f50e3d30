package io.commitlane.actors.projection;

import io.commitlane.actors.projection.internal.ProjectionSource;
import io.commitlane.actors.projection.internal.ProjectionStore;
import io.commitlane.annotation.InternalApi;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * An exactly-once projection of a transaction log into the same database: a read model, an index,
 * counters. A handler gets the log's records in batches, in log order, and adds its writes to the
 * transaction that also stores the projection's new position (under its name, in the store {@link
 * ProjectionSettings#offsetStore()}); the writes and the position commit together or not at all.
 * So after a crash, a restart or a stop the projection resumes right after the last batch that
 * committed: no record is missed and none is applied twice.
 *
 * <pre>{@code
 * Projection<LogRecord, Transaction> counts = LocalProjection.of(db, "order-counts", "orders",
 *     (txn, records) -> { ... txn.get / txn.put ... });
 * ProjectionControl running = counts.run(system);   // or counts.source(), or spawn ProjectionActor.create(counts)
 * running.status();                                  // position, lag, counts, last error
 * running.stop();
 * }</pre>
 *
 * <p>The stored position's write is conditional on the position the runner read: two runners of
 * the same projection (a slow handoff, a second node) can never both apply a batch. The one that
 * loses gets a {@link ProjectionConflictException}, reads the stored position again and goes on
 * from there ({@link ProjectionStatus#conflicts()}).
 *
 * <p>A projection is a description: each {@link #run}, {@link #source()} materialization or
 * {@link ProjectionActor} starts a runner that reads the stored position when it starts.
 * Factories: {@link LocalProjection#of} for a local database, {@code ReplicatedProjection.of} in
 * {@code commitlane-replication-actors} for a replicated one. What it does not cover (writes to
 * another system) is in docs/projections.md.
 *
 * @param <R> the record type of its log
 * @param <T> the transaction type its handler writes through
 */
public final class Projection<R, T> {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");

  private final ProjectionStore<R, T> store;
  private final String name;
  private final ProjectionHandler<R, T> handler;
  private final ProjectionSettings settings;

  private Projection(ProjectionStore<R, T> store, String name, ProjectionHandler<R, T> handler, ProjectionSettings settings) {
    this.store = Objects.requireNonNull(store, "store");
    this.name = checkName(name);
    this.handler = Objects.requireNonNull(handler, "handler");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /** INTERNAL API: the factories of each kind of database build projections with this. */
  @InternalApi
  public static <R, T> Projection<R, T> of(ProjectionStore<R, T> store, String name, ProjectionHandler<R, T> handler,
      ProjectionSettings settings) {
    return new Projection<>(store, name, handler, settings);
  }

  /**
   * A projection name: 1..200 of {@code A-Z a-z 0-9 . _ -}, starting with a letter or digit. It is
   * the key of the projection's position: two projections of one name share it.
   *
   * @throws IllegalArgumentException otherwise
   */
  static String checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("projection name " + (name == null ? "null" : '"' + name + '"')
          + " is invalid: use 1..200 of A-Z a-z 0-9 . _ - starting with a letter or digit (it is the key of its stored position)");
    }
    return name;
  }

  /** The projection's name: the key of its stored position. */
  public String name() {
    return name;
  }

  /** The name of the log it reads. */
  public String log() {
    return store.log();
  }

  public ProjectionSettings settings() {
    return settings;
  }

  /** This projection with other settings. */
  public Projection<R, T> withSettings(ProjectionSettings settings) {
    return new Projection<>(store, name, handler, settings);
  }

  /**
   * The projection as a source: each element is a batch that committed, in log order. A batch is
   * committed only when downstream asks for an element (backpressure: a downstream that does not
   * pull holds the projection, which reads at most one batch ahead meanwhile). Cancelling
   * downstream stops the runner after the outcome of the batch it is committing; a failure that
   * stops the projection fails the stream with that error. The materialized {@link
   * ProjectionControl} shows its status and stops it.
   */
  public Source<ProjectionBatch<R>, ProjectionControl> source() {
    return ProjectionSource.of(store, name, handler, settings);
  }

  /** Runs the projection in {@code system} until it is stopped ({@link ProjectionControl#stop()}) or fails. */
  public ProjectionControl run(ActorSystem<?> system) {
    Objects.requireNonNull(system, "system");
    return source().toMat(Sink.ignore(), Keep.left()).run(system);
  }

  @Override
  public String toString() {
    return "Projection[" + name + " of " + store.describe() + "]";
  }
}
