package io.commitlane.actors;

import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.internal.pipeline.DispatcherFuture;
import io.commitlane.actors.stream.Backoff;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.dispatch.ExecutionContexts;

/**
 * How often, and how far apart, a write that conflicted is tried again: at most {@code
 * maxAttempts} attempts in all, each retry after {@code backoff}. Nothing blocks while it waits.
 *
 * <ul>
 *   <li>With the Java API: {@link CommitlaneDatabase#transactAsync(Retry, io.commitlane.storage.TransactionFunction)}
 *       runs the body again on a fresh transaction after each conflict.
 *   <li>From an actor that holds only a database's reference: {@link #write} sends a {@link
 *       DatabaseProtocol.Write} or {@link DatabaseProtocol.ConditionalWrite}, and again after each
 *       {@link Conflicted} reply, and completes with the last reply; hand the stage to {@code
 *       context.pipeToSelf}.
 * </ul>
 *
 * @param maxAttempts attempts in all, 1 or more (1: a conflict is the outcome)
 * @param backoff the delay before each retry
 */
public record Retry(int maxAttempts, Backoff backoff) {
  public Retry {
    if (maxAttempts < 1) {
      throw new InvalidSettingsException(List.of(new SettingError("retry.max-attempts", maxAttempts, "must be 1 or more")));
    }
    Objects.requireNonNull(backoff, "backoff");
  }

  /** At most {@code maxAttempts} attempts, each retry after {@code backoff}. */
  public static Retry onConflict(int maxAttempts, Backoff backoff) {
    return new Retry(maxAttempts, backoff);
  }

  /** One attempt: a conflict is the outcome. */
  public static Retry none() {
    return new Retry(1, Backoff.none());
  }

  /** Whether a write that got {@code reply} on attempt {@code attempt} (1 = the first) is tried again. */
  public boolean retries(WriteReply reply, int attempt) {
    return reply instanceof Conflicted && attempt < maxAttempts;
  }

  /** The delay before attempt {@code attempt + 1}. */
  public Duration delay(int attempt) {
    return backoff.delay(attempt);
  }

  /** Builds the request of one attempt of a write. */
  @FunctionalInterface
  public interface Attempt {
    /**
     * The request for attempt {@code attempt} (1 = the first), replying to {@code replyTo}: a
     * {@link DatabaseProtocol.Write} or {@link DatabaseProtocol.ConditionalWrite}. {@code
     * previous} is the conflict that ended the attempt before (null for the first); after {@link
     * DatabaseProtocol.ConflictCause#EXPECTATIONS} its {@code actual()} values are what the keys
     * hold now, to compute the next attempt from. Return null to stop: the stage then completes
     * with {@code previous}.
     */
    Request request(int attempt, Conflicted previous, ActorRef<WriteReply> replyTo);
  }

  /**
   * Send the write {@code attempt} builds to {@code database} (a local database's reference or a
   * sharded database's entity reference), and again after each {@link Conflicted} reply while
   * attempts remain, each time after the backoff. The stage completes with the last reply, on
   * Pekko's default dispatcher; it never fails: no reply within {@code timeout} completes it with
   * a {@link WriteRefused} whose refusal is {@link Unavailable} ({@code NO_REPLY}, outcome
   * unknown). A {@link Conflicted} it passes on (to {@code attempt} as {@code previous}, or as the
   * last reply) counts in {@code attempts()} every attempt made so far, the database's own
   * retries included.
   */
  @SuppressWarnings("unchecked")
  public CompletionStage<WriteReply> write(ActorSystem<?> system, RecipientRef<? super Request> database, Duration timeout,
      Attempt attempt) {
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(attempt, "attempt");
    Executor executor = system.dispatchers().lookup(DispatcherSelector.defaultDispatcher());
    CompletableFuture<WriteReply> result = new DispatcherFuture<>(executor);
    send(system, (RecipientRef<Request>) database, timeout, attempt, 1, null, 0, executor, result);
    return result;
  }

  /**
   * @param previous the last conflict, its {@code attempts()} counting every attempt so far
   * @param made the database's attempts so far (a sharded database may make several per request)
   */
  private void send(ActorSystem<?> system, RecipientRef<Request> database, Duration timeout, Attempt attempt, int n,
      Conflicted previous, int made, Executor executor, CompletableFuture<WriteReply> result) {
    Request[] sent = new Request[1];
    CompletionStage<WriteReply> reply;
    try {
      // The factory runs on this thread, inside ask: a null request stops before anything is sent.
      reply = AskPattern.<Request, WriteReply>ask(database, replyTo -> {
        sent[0] = attempt.request(n, previous, replyTo);
        if (sent[0] == null) {
          throw new StopRetrying();
        }
        return sent[0];
      }, timeout, system.scheduler());
    } catch (StopRetrying e) {
      if (previous != null) {
        result.complete(previous);
      } else {
        result.completeExceptionally(new IllegalArgumentException("Retry.Attempt returned no request for the first attempt"));
      }
      return;
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return;
    }
    // An explicit executor: the ask stage would otherwise run this on the common pool.
    reply.whenCompleteAsync((r, err) -> {
      if (err != null) {
        long correlation = sent[0] == null ? 0 : sent[0].correlation();
        result.complete(new WriteRefused(correlation, new Unavailable(UnavailableReason.NO_REPLY, "no reply from " + database
            + " within " + timeout + " (" + err.getClass().getSimpleName() + "); the outcome is unknown")));
      } else if (retries(r, n)) {
        Conflicted counted = counted((Conflicted) r, made);
        Duration d = delay(n);
        Runnable next = () -> send(system, database, timeout, attempt, n + 1, counted, counted.attempts(), executor, result);
        if (d.isZero()) {
          next.run();
        } else {
          system.scheduler().scheduleOnce(d, next, ExecutionContexts.fromExecutor(executor));
        }
      } else {
        result.complete(r instanceof Conflicted c ? counted(c, made) : r);
      }
    }, executor);
  }

  /** {@code c} with {@code attempts()} counting the attempts made before it too. */
  private static Conflicted counted(Conflicted c, int madeBefore) {
    return madeBefore == 0 ? c : new Conflicted(c.correlation(), c.cause(), c.actual(), madeBefore + c.attempts());
  }

  /** Thrown inside the ask's message factory when the attempt builder returns null. */
  private static final class StopRetrying extends RuntimeException {
    StopRetrying() {
      super("no more attempts", null, false, false);
    }
  }
}
