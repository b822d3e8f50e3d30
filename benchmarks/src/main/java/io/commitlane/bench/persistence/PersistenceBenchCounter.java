package io.commitlane.bench.persistence;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.state.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.state.javadsl.DurableStateBehavior;

/** The benchmark's durable-state entity: upserts a 100-byte state without pause, each after the previous one is stored. */
final class PersistenceBenchCounter extends DurableStateBehavior<PersistenceBenchCounter.Command, byte[]> {
  sealed interface Command {}

  record Next() implements Command {}

  private final ActorContext<Command> context;
  private final PersistenceBenchEntity.Meters meters;

  static Behavior<Command> create(String id, PersistenceBenchEntity.Meters meters) {
    return Behaviors.setup(ctx -> new PersistenceBenchCounter(ctx, id, meters));
  }

  private PersistenceBenchCounter(ActorContext<Command> context, String id, PersistenceBenchEntity.Meters meters) {
    super(PersistenceId.ofUniqueId(id));
    this.context = context;
    this.meters = meters;
  }

  @Override
  public byte[] emptyState() {
    return new byte[100];
  }

  @Override
  public CommandHandler<Command, byte[]> commandHandler() {
    return newCommandHandlerBuilder().forAnyState().onCommand(Next.class, (s, n) -> {
      if (!meters.running) {
        return Effect().none();
      }
      long start = System.nanoTime();
      return Effect().persist(new byte[100]).thenRun(x -> {
        meters.latency.recordValue(System.nanoTime() - start);
        meters.events.increment();
        context.getSelf().tell(new Next());
      });
    }).build();
  }
}
