package io.commitlane.bench.persistence;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The benchmark's event-sourced entity: persists 100-byte events ({@code byte[]}, Pekko's built-in serializer, the
 * same bytes on every journal), one {@code persist} or one {@code persistAll} of {@code batch} at a time, and times
 * each from the command that persists it to its handler. Its state is the number of events it holds.
 */
final class PersistenceBenchEntity extends EventSourcedBehavior<PersistenceBenchEntity.Command, byte[], Long> {
  sealed interface Command {}

  /** Persist {@code writes} times (forever if negative), {@code batch} events each; reply when done. */
  record Run(int writes, int batch, ActorRef<Long> done) implements Command {}

  record Stop() implements Command {}

  private record Next(int left, int batch, ActorRef<Long> done) implements Command {}

  /** Where measurements go: events counted, latency per write (persist to handler, ns), recoveries. */
  static final class Meters {
    final LongAdder events = new LongAdder();
    final Recorder latency = new Recorder(3);
    final LongAdder recovered = new LongAdder();
    final LongAdder recoveredEvents = new LongAdder();
    /** Entities stopped by a journal failure (a write failed or timed out: the circuit breaker opened). */
    final LongAdder failed = new LongAdder();
    volatile boolean running = true;
  }

  private static final byte[] EVENT = new byte[100];
  private final ActorContext<Command> context;
  private final Meters meters;
  private final boolean tagged;

  static Behavior<Command> create(String id, Meters meters, boolean tagged) {
    return Behaviors.setup(ctx -> new PersistenceBenchEntity(ctx, id, meters, tagged));
  }

  private PersistenceBenchEntity(ActorContext<Command> context, String id, Meters meters, boolean tagged) {
    super(PersistenceId.ofUniqueId(id));
    this.context = context;
    this.meters = meters;
    this.tagged = tagged;
  }

  @Override
  public Long emptyState() {
    return 0L;
  }

  @Override
  public CommandHandler<Command, byte[], Long> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(Run.class, (n, run) -> {
          context.getSelf().tell(new Next(run.writes(), run.batch(), run.done()));
          return Effect().none();
        })
        .onCommand(Next.class, (n, next) -> {
          if (next.left() == 0 || !meters.running) {
            return Effect().none().thenRun(s -> next.done().tell(s));
          }
          List<byte[]> events = new ArrayList<>(next.batch());
          for (int i = 0; i < next.batch(); i++) {
            events.add(EVENT);
          }
          long start = System.nanoTime();
          return Effect().persist(events).thenRun(s -> {
            meters.latency.recordValue(System.nanoTime() - start);
            meters.events.add(next.batch());
            context.getSelf().tell(new Next(next.left() < 0 ? -1 : next.left() - 1, next.batch(), next.done()));
          });
        })
        .onCommand(Stop.class, (n, stop) -> Effect().stop())
        .build();
  }

  @Override
  public EventHandler<Long, byte[]> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent((n, e) -> n + 1);
  }

  @Override
  public SignalHandler<Long> signalHandler() {
    return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), n -> {
      meters.recovered.increment();
      meters.recoveredEvents.add(n);
    }).onSignal(org.apache.pekko.actor.typed.PostStop.instance(), n -> {
      if (meters.running) {
        meters.failed.increment(); // stopped while the load ran: only a journal failure does that
      }
    }).build();
  }

  @Override
  public Set<String> tagsFor(byte[] event) {
    return tagged ? Set.of("t") : Set.of();
  }
}
