package io.commitlane.actors;

import java.time.Duration;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The transaction-log actor of one database, a child of its supervisor: takes RocksDB's flush
 * events off RocksDB's flush thread (recording a flushed position means an fsync and a rename)
 * and runs the periodic purge. It runs on {@code commitlane.log-dispatcher}, a dedicated thread,
 * because both block on I/O. The supervisor stops it before it closes the logs.
 */
final class TransactionLogActor extends AbstractBehavior<TransactionLogActor.Command> {
  sealed interface Command permits FlushCompleted, Purge {}

  /** RocksDB finished a flush holding everything up to {@code sequence}. */
  record FlushCompleted(long sequence) implements Command {}

  enum Purge implements Command { INSTANCE }

  private final TransactionLogs logs;

  private TransactionLogActor(ActorContext<Command> ctx, TransactionLogs logs) {
    super(ctx);
    this.logs = logs;
  }

  static Behavior<Command> create(TransactionLogs logs, Duration purgeInterval) {
    return Behaviors.setup(ctx -> Behaviors.withTimers((TimerScheduler<Command> timers) -> {
      if (!purgeInterval.isZero()) {
        timers.startTimerWithFixedDelay(Purge.INSTANCE, purgeInterval);
      }
      return new TransactionLogActor(ctx, logs);
    }));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(FlushCompleted.class, this::onFlushCompleted)
        .onMessage(Purge.class, p -> onPurge())
        .build();
  }

  private Behavior<Command> onFlushCompleted(FlushCompleted f) {
    logs.onFlushCompleted(f.sequence());
    return this;
  }

  private Behavior<Command> onPurge() {
    logs.purgeExpired();
    return this;
  }
}
