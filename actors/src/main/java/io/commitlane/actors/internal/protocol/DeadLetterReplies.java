package io.commitlane.actors.internal.protocol;

import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.Request;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Answers the protocol requests that reached a stopped database actor (or were left in its
 * mailbox when it stopped): they were never served, and their senders are owed a reply. One per
 * actor system, subscribed to its dead letters. It speaks only for actors it knows were databases
 * (the supervisors' protocol actors, the database actors spawned in this system, and the paths a
 * database implementation registered); a request dead-lettered anywhere else is left alone.
 */
public final class DeadLetterReplies {
  /** Requests to actors whose path (without address) starts with {@code prefix} are refused with {@code reply}. */
  public record Rule(String prefix, Refusal reply) {}

  /** Where the extension's supervisors live: {@code /system/commitlane-<db>-<n>/...}. */
  static final String SUPERVISORS = "/system/commitlane-";
  /** Database actors remembered by path, the most recent first to stay; a bound on what a long-lived system keeps. */
  static final int REMEMBERED = 65_536;

  /** Database actors by path, with why each refuses once stopped: null for the default ("had stopped"). */
  private final Map<String, Refusal> databaseActors = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Refusal> eldest) {
      return size() > REMEMBERED;
    }
  };

  /** A database actor started at {@code path} (without address): answer for it once it stops. */
  public synchronized void remember(String path) {
    databaseActors.put(path, null);
  }

  /**
   * The database actor at {@code path} stops because its open failed: the requests that reach it
   * afterwards are refused with {@code why}, which names the cause, rather than only "had stopped"
   * (the cause would otherwise be in the log alone).
   */
  public synchronized void openFailed(String path, Refusal why) {
    databaseActors.put(path, why);
  }

  /** Why a request to the stopped actor at {@code path} is refused, or null if it was no database actor. */
  private synchronized Refusal refusalFor(String path) {
    Refusal why = databaseActors.get(path);
    if (why != null) {
      return why;
    }
    if (path.startsWith(SUPERVISORS) || databaseActors.containsKey(path)) {
      return new Failed(FailureReason.DATABASE_CLOSED, "the database actor " + path
          + " had stopped (its database closed, or its parent stopped it) before it read this request; nothing was written."
          + " Open the database again and send the request to its new reference", false);
    }
    return null;
  }

  public Behavior<DeadLetter> behavior(List<Rule> rules) {
    return Behaviors.setup(ctx -> {
      ctx.getSystem().eventStream().tell(new EventStream.Subscribe<>(DeadLetter.class, ctx.getSelf()));
      return Behaviors.receive(DeadLetter.class)
          .onMessage(DeadLetter.class, d -> onDeadLetter(d, rules))
          .build();
    });
  }

  private Behavior<DeadLetter> onDeadLetter(DeadLetter d, List<Rule> rules) {
    if (d.message() instanceof Request r && d.recipient() != null) {
      String path = d.recipient().path().toStringWithoutAddress();
      for (Rule rule : rules) {
        if (path.startsWith(rule.prefix())) {
          r.answer(rule.reply());
          return Behaviors.same();
        }
      }
      Refusal why = refusalFor(path);
      if (why != null) {
        r.answer(why);
      }
    }
    return Behaviors.same();
  }
}
