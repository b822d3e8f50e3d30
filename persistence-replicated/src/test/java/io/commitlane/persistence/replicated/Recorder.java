package io.commitlane.persistence.replicated;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;

/** An event-sourced entity that records strings (tagged "recorded") and tells what it holds. */
final class Recorder extends EventSourcedBehavior<Recorder.Command, String, List<String>> {
  static final String TAG = "recorded";

  sealed interface Command {}

  record Record(String event, ActorRef<Long> replyTo) implements Command {}

  record Get(ActorRef<List<String>> replyTo) implements Command {}

  static Behavior<Command> create(String id) {
    return new Recorder(PersistenceId.ofUniqueId(id));
  }

  private Recorder(PersistenceId id) {
    super(id);
  }

  @Override
  public List<String> emptyState() {
    return List.of();
  }

  @Override
  public CommandHandler<Command, String, List<String>> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(Record.class, (state, c) -> Effect().persist(c.event()).thenReply(c.replyTo(), s -> (long) s.size()))
        .onCommand(Get.class, (state, c) -> Effect().reply(c.replyTo(), state))
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
  public Set<String> tagsFor(String event) {
    return Set.of(TAG);
  }
}
