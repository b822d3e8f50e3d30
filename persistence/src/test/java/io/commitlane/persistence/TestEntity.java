package io.commitlane.persistence;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;

/** An event-sourced entity for the tests: persists the strings it is given (persistAll for several), tags them. */
final class TestEntity extends EventSourcedBehavior<TestEntity.Command, String, List<String>> {
  sealed interface Command {}

  /** Persist {@code events} (one persist, or one persistAll); the reply is the last sequence number, after the handler. */
  record Persist(List<String> events, ActorRef<Long> replyTo) implements Command {}

  record GetState(ActorRef<List<String>> replyTo) implements Command {}

  private final ActorContext<Command> context;
  private final Function<String, Set<String>> tagger;

  static Behavior<Command> create(String id, Function<String, Set<String>> tagger) {
    return Behaviors.setup(ctx -> new TestEntity(ctx, id, tagger));
  }

  private TestEntity(ActorContext<Command> context, String id, Function<String, Set<String>> tagger) {
    super(PersistenceId.ofUniqueId(id));
    this.context = context;
    this.tagger = tagger;
  }

  @Override
  public List<String> emptyState() {
    return new ArrayList<>();
  }

  @Override
  public CommandHandler<Command, String, List<String>> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(Persist.class, (state, c) -> Effect().persist(c.events())
            .thenRun(s -> c.replyTo().tell(lastSequenceNumber(context))))
        .onCommand(GetState.class, (state, c) -> Effect().none().thenRun(s -> c.replyTo().tell(List.copyOf(s))))
        .build();
  }

  @Override
  public EventHandler<List<String>, String> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent((state, e) -> {
      state.add(e);
      return state;
    });
  }

  @Override
  public Set<String> tagsFor(String event) {
    return tagger.apply(event);
  }
}
