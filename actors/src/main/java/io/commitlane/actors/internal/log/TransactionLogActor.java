package io.commitlane.actors.internal.log;

import io.commitlane.actors.internal.pipeline.CompletionBatcher;
import io.commitlane.actors.internal.protocol.RequestLedger;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.txlog.internal.append.LogWriterHost;
import io.commitlane.txlog.TransactionLog;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The transaction-log actor of one database, a child of its supervisor. It does four things:
 *
 * <ul>
 *   <li>takes RocksDB's flush events off RocksDB's flush thread ({@link FlushCompleted}):
 *       recording a flushed position means an fsync and a rename;
 *   <li>runs the periodic purge of log segments ({@link Purge});
 *   <li>starts the periodic purge of request-id records past their window ({@link
 *       PurgeRequestIds}), which runs on the blocking dispatcher because it scans every record;
 *   <li>with {@code txlog.append = actor}, writes the logs: committing threads queue their records
 *       (and the finishes of their commits) in the log, and the log sends {@link WriteQueued} when
 *       no turn is pending. Each {@code WriteQueued} is one writer turn: a batch written, forced
 *       for {@code fsync}, finished, sampled and acknowledged.
 * </ul>
 *
 * <p>Turns, flush events and purges are handled one at a time in mailbox order, so a flush event
 * never runs inside a batch. The actor runs on {@code commitlane.log-dispatcher}, a dedicated
 * thread, because all of it blocks on I/O. The supervisor stops it before it closes the logs; when
 * it stops, the logs' writers go back to their own threads.
 */
public final class TransactionLogActor extends AbstractBehavior<TransactionLogActor.Command> {
  public sealed interface Command permits FlushCompleted, Purge, PurgeRequestIds, WriteQueued {}

  /** RocksDB finished a flush holding everything up to {@code sequence}. */
  public record FlushCompleted(long sequence) implements Command {}

  public enum Purge implements Command { INSTANCE }

  /** Delete request-id records past their window (on the blocking dispatcher). */
  public enum PurgeRequestIds implements Command { INSTANCE }

  /** Records or finishes are queued for {@code log}'s writer: run a turn. */
  public record WriteQueued(TransactionLog log) implements Command {}

  /** This actor as the host of the logs' writers; equal across restarts (it names the same actor). */
  private record Host(ActorRef<Command> actor) implements LogWriterHost {
    @Override
    public void wake(TransactionLog log) {
      actor.tell(new WriteQueued(log));
    }
  }

  private final TransactionLogs logs;
  private final RequestLedger requests;
  /** Where the callbacks of the commits a turn acknowledges go: collected per turn, one dispatcher task per batch. */
  private final CompletionBatcher callbacks;
  /**
   * Where the request-id purge runs (a scan of every record): the blocking dispatcher, not this
   * actor, so with {@code txlog.append = actor} it never holds up the logs' writes.
   */
  private final Executor blocking;
  /** Set while a request-id purge runs: a slow one is not overlapped by the next. */
  private final AtomicBoolean purgingRequestIds = new AtomicBoolean();
  /** The writer host this actor is, if it took the role (null otherwise). */
  private final LogWriterHost host;

  private TransactionLogActor(ActorContext<Command> ctx, TransactionLogs logs, RequestLedger requests, CompletionBatcher callbacks,
      Executor blocking) {
    super(ctx);
    this.blocking = blocking;
    this.logs = logs;
    this.requests = requests;
    this.callbacks = callbacks;
    Host writer = new Host(ctx.getSelf());
    this.host = logs.hostWriters(writer) ? writer : null;
  }

  /**
   * @param callbacks the pipeline's completion batcher: the acknowledgements a writer turn completes
   *     hand their commits' callbacks to the completion dispatcher together
   * @param blocking where the request-id purge runs (the lifecycle dispatcher)
   */
  public static Behavior<Command> create(TransactionLogs logs, Duration purgeInterval, RequestLedger requests,
      Duration requestPurgeInterval, CompletionBatcher callbacks, Executor blocking) {
    return Behaviors.setup(ctx -> Behaviors.withTimers((TimerScheduler<Command> timers) -> {
      if (!purgeInterval.isZero()) {
        timers.startTimerWithFixedDelay(Purge.INSTANCE, purgeInterval);
      }
      timers.startTimerWithFixedDelay(PurgeRequestIds.INSTANCE, requestPurgeInterval);
      return new TransactionLogActor(ctx, logs, requests, callbacks, blocking);
    }));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(WriteQueued.class, this::onWriteQueued)
        .onMessage(FlushCompleted.class, this::onFlushCompleted)
        .onMessage(Purge.class, p -> onPurge())
        .onMessage(PurgeRequestIds.class, p -> onPurgeRequestIds())
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  /** One batch; if more is queued, the next turn comes after whatever else is in the mailbox. */
  private Behavior<Command> onWriteQueued(WriteQueued w) {
    boolean more;
    callbacks.collect();
    try {
      more = w.log().writeQueued();
    } finally {
      callbacks.stop();
    }
    if (more) {
      getContext().getSelf().tell(w);
    }
    return this;
  }

  private Behavior<Command> onFlushCompleted(FlushCompleted f) {
    logs.onFlushCompleted(f.sequence());
    return this;
  }

  private Behavior<Command> onPurge() {
    logs.purgeExpired();
    return this;
  }

  private Behavior<Command> onPurgeRequestIds() {
    if (purgingRequestIds.compareAndSet(false, true)) {
      org.slf4j.Logger log = getContext().getLog();
      CompletableFuture.runAsync(() -> purgeRequestIds(log), blocking)
          .whenComplete((ok, err) -> purgingRequestIds.set(false));
    }
    return this;
  }

  private void purgeRequestIds(org.slf4j.Logger log) {
    try {
      requests.purge();
    } catch (DatabaseClosedException e) {
      // the database closes; this actor stops with it
    } catch (RuntimeException e) {
      log.error("purging the request ids of {} failed; the next purge tries again", requests, e);
    }
  }

  /** Turns sent to a stopped actor are lost: the logs' own threads take over (and take those). */
  private Behavior<Command> onPostStop() {
    logs.releaseWriters(host);
    return this;
  }
}
