package io.commitlane.persistence;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The crash workload's entity: once recovered it persists without pause, alternating a single {@code persist} and a
 * {@code persistAll} of three, snapshots every 10 events, and reports each write from its persist handler. Events
 * are named {@code <batch>:<i>/<n>} so a check can tell a partial batch. Its state is every event it recovered or
 * wrote, in order (the recovered state, from a snapshot and the events after it, is checked too).
 */
final class CrashEntity extends EventSourcedBehavior<CrashEntity.Command, String, List<String>> {
  sealed interface Command {}

  private record Next() implements Command {}

  record GetState(ActorRef<List<String>> replyTo) implements Command {}

  /** A write whose handler ran: the id, its last sequence number and how many events it held. */
  record Written(String id, long lastSequenceNr, int events) {}

  private final ActorContext<Command> context;
  private final String id;
  private final boolean drive;
  private final Consumer<Written> written;

  static Behavior<Command> create(String id, boolean drive, Consumer<Written> written) {
    return Behaviors.setup(ctx -> new CrashEntity(ctx, id, drive, written));
  }

  private CrashEntity(ActorContext<Command> context, String id, boolean drive, Consumer<Written> written) {
    super(PersistenceId.ofUniqueId(id));
    this.context = context;
    this.id = id;
    this.drive = drive;
    this.written = written;
  }

  @Override
  public List<String> emptyState() {
    return new ArrayList<>();
  }

  @Override
  public CommandHandler<Command, String, List<String>> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(Next.class, (state, c) -> {
          long seq = lastSequenceNumber(context);
          List<String> batch = new ArrayList<>();
          int n = seq % 2 == 0 ? 1 : 3;
          for (int i = 1; i <= n; i++) {
            batch.add("b" + seq + ":" + i + "/" + n);
          }
          return Effect().persist(batch).thenRun(s -> {
            written.accept(new Written(id, lastSequenceNumber(context), n));
            context.getSelf().tell(new Next());
          });
        })
        .onCommand(GetState.class, (state, c) -> Effect().none().thenRun(s -> c.replyTo().tell(List.copyOf(s))))
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
    return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), state -> {
      if (drive) {
        context.getSelf().tell(new Next());
      }
    }).build();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(10, 2);
  }

  @Override
  public Set<String> tagsFor(String event) {
    return Set.of("all");
  }
}
