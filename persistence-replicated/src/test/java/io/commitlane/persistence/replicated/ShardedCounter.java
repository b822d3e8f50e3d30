package io.commitlane.persistence.replicated;

import java.io.Serializable;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.state.RecoveryCompleted;
import org.apache.pekko.persistence.typed.state.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.state.javadsl.DurableStateBehavior;
import org.apache.pekko.persistence.typed.state.javadsl.SignalHandler;

/**
 * A sharded durable-state entity of the process tests: a count, stored whole on every {@code Add} (revision r holds
 * the count r, so a lost or doubled upsert shows), replying with the new count once the upsert is stored.
 */
final class ShardedCounter extends DurableStateBehavior<ShardedCounter.Command, Long> {
  static final EntityTypeKey<Command> TYPE = EntityTypeKey.create(Command.class, "Counted");
  static final String TAG = "counted";

  sealed interface Command extends Serializable {}

  record Add(ActorRef<Long> replyTo) implements Command {}

  record Get(ActorRef<Long> replyTo) implements Command {}

  private final Consumer<String> recovered;
  private final LongConsumer stored;

  /** Like {@link ShardedRecorder#create}: {@code stored} is told each count (its revision) once stored or recovered. */
  static Behavior<Command> create(String entityId, Consumer<String> recovered, LongConsumer stored) {
    return new ShardedCounter(PersistenceId.of(TYPE.name(), entityId), recovered, stored);
  }

  private ShardedCounter(PersistenceId id, Consumer<String> recovered, LongConsumer stored) {
    super(id);
    this.recovered = recovered;
    this.stored = stored;
  }

  @Override
  public Long emptyState() {
    return 0L;
  }

  @Override
  public CommandHandler<Command, Long> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(Add.class, (count, c) -> Effect().persist(count + 1).thenRun(stored::accept).thenReply(c.replyTo(), s -> s))
        .onCommand(Get.class, (count, c) -> Effect().reply(c.replyTo(), count))
        .build();
  }

  @Override
  public SignalHandler<Long> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), count -> {
          stored.accept(count);
          recovered.accept(persistenceId().id() + " " + count);
        })
        .build();
  }

  @Override
  public String tag() {
    return TAG;
  }
}
