package io.commitlane.actors;

import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.Request;
import java.util.List;
import java.util.function.LongFunction;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Answers the protocol requests that reached a stopped database actor (or were left in its
 * mailbox when it stopped): they were never served, and their senders are owed a reply. One per
 * actor system, subscribed to its dead letters.
 */
final class DeadLetterReplies {
  /** Requests to actors whose path (without address) starts with {@code prefix} get {@code reply}. */
  record Rule(String prefix, LongFunction<Refusal> reply) {}

  private DeadLetterReplies() {}

  static Behavior<DeadLetter> create(List<Rule> rules) {
    return Behaviors.setup(ctx -> {
      ctx.getSystem().eventStream().tell(new EventStream.Subscribe<>(DeadLetter.class, ctx.getSelf()));
      return Behaviors.receive(DeadLetter.class)
          .onMessage(DeadLetter.class, d -> onDeadLetter(d, rules))
          .build();
    });
  }

  private static Behavior<DeadLetter> onDeadLetter(DeadLetter d, List<Rule> rules) {
    if (d.message() instanceof Request r) {
      r.answer(replyFor(d, r.correlation(), rules));
    }
    return Behaviors.same();
  }

  private static Refusal replyFor(DeadLetter d, long correlation, List<Rule> rules) {
    String path = d.recipient() == null ? "(unknown)" : d.recipient().path().toStringWithoutAddress();
    for (Rule rule : rules) {
      if (path.startsWith(rule.prefix())) {
        return rule.reply().apply(correlation);
      }
    }
    return new Failed(correlation, FailureReason.DATABASE_CLOSED, "the database actor " + path
        + " had stopped (its database closed, or its parent stopped it) before it read this request; nothing was written."
        + " Open the database again and send the request to its new reference", false);
  }
}
