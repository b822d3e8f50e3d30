package io.commitlane.persistence.replicated;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * A sharded event-sourced entity of the process tests: records strings (tagged {@value #TAG}), replies with the
 * event's sequence number once its persist handler ran, and tells where it recovered.
 */
final class ShardedRecorder extends EventSourcedBehavior<ShardedRecorder.Command, String, List<String>> {
  static final EntityTypeKey<Command> TYPE = EntityTypeKey.create(Command.class, "Recorded");
  static final String TAG = "recorded";

  /** Commands cross nodes through sharding (Java serialization, allowed in the tests' configuration). */
  sealed interface Command extends Serializable {}

  /** Persist {@code event}; the reply is its sequence number, sent after the persist handler ran. */
  record Record(String event, ActorRef<Long> replyTo) implements Command {}

  /** The events this incarnation holds, in sequence order, joined by commas. */
  record Get(ActorRef<String> replyTo) implements Command {}

  private final Consumer<String> recovered;
  private final LongConsumer persisted;

  /**
   * {@code recovered} is told the entity's persistence id and highest sequence number once it recovered;
   * {@code persisted} each sequence number once its persist handler ran.
   */
  static Behavior<Command> create(String entityId, Consumer<String> recovered, LongConsumer persisted) {
    return new ShardedRecorder(PersistenceId.of(TYPE.name(), entityId), recovered, persisted);
  }

  private ShardedRecorder(PersistenceId id, Consumer<String> recovered, LongConsumer persisted) {
    super(id);
    this.recovered = recovered;
    this.persisted = persisted;
  }

  @Override
  public List<String> emptyState() {
    return List.of();
  }

  @Override
  public CommandHandler<Command, String, List<String>> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(Record.class, (state, c) -> Effect().persist(c.event())
            .thenRun(s -> persisted.accept(s.size()))
            .thenReply(c.replyTo(), s -> (long) s.size()))
        .onCommand(Get.class, (state, c) -> Effect().reply(c.replyTo(), String.join(",", state)))
        .build();
  }

  @Override
  public EventHandler<List<String>, String> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent((state, e) -> {
      List<String> next = new ArrayList<>(state);
      next.add(e);
      return next;
    });
  }

  @Override
  public SignalHandler<List<String>> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), state -> {
          persisted.accept(state.size());
          recovered.accept(persistenceId().id() + " " + state.size());
        })
        .build();
  }

  @Override
  public Set<String> tagsFor(String event) {
    return Set.of(TAG);
  }
}
