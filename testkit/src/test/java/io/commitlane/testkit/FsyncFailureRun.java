package io.commitlane.testkit;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.storage.Batch;
import io.commitlane.testkit.RecoveryHistory.Burst;
import io.commitlane.testkit.RecoveryHistory.Commit;
import io.commitlane.testkit.RecoveryHistory.Flush;
import io.commitlane.testkit.RecoveryHistory.PlainWrite;
import io.commitlane.testkit.RecoveryHistory.Reopen;
import io.commitlane.testkit.RecoveryHistory.Step;
import io.commitlane.testkit.pekko.RecoveryRunner;
import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * Runs a {@link RecoveryHistory} through the actor protocol: each commit is a {@link Write} with
 * its own request id ({@code c<id>}), the burst's writes sent together. The log's next fsync fails
 * before one chosen burst. Every write not answered {@code Committed} is sent again at once with
 * the same id (what a client does), and the outcomes are sorted out for the model:
 *
 * <ul>
 *   <li>acknowledged: the write or its repeat was answered {@code Committed} (a repeat answered
 *       {@code Committed} vouches for the write exactly as the first answer would);
 *   <li>unknown: it was reported written but not durable ({@code NotDurableException}), so it is
 *       there after a reopen or not; a repeat must not be answered {@code Committed} while the
 *       database stays open (a violation otherwise);
 *   <li>failed: nothing was written (refused before the write), and the repeat did not commit it.
 * </ul>
 *
 * A repeat of a write that failed without writing runs right after its burst, before the next
 * step, on keys no other write of the burst touches: its place in commit order is its burst's.
 */
final class FsyncFailureRun {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  final Set<Integer> acknowledged = new HashSet<>();
  final Set<Integer> failed = new HashSet<>();
  final Set<Integer> unknown = new HashSet<>();
  /** Writes found there after a reopen without their log record (it never reached the file). */
  final Set<Integer> recordless = new HashSet<>();
  final List<String> violations = new ArrayList<>();
  /** Steps before the last flush or reopen that completed. */
  int durableThrough;
  /** Writes reported written but not durable, first attempts and repeats. */
  int notDurable;

  private final ActorSystem<?> system;
  private final RecoveryHistory history;
  private final FaultInjectingFileSystem fs;
  private final int failBeforeBurst;
  private long correlation;

  /** @param failBeforeBurst the log's next fsync fails when burst number {@code failBeforeBurst} (from 0) is sent */
  FsyncFailureRun(ActorSystem<?> system, RecoveryHistory history, FaultInjectingFileSystem fs, int failBeforeBurst) {
    this.system = system;
    this.history = history;
    this.fs = fs;
    this.failBeforeBurst = failBeforeBurst;
  }

  /**
   * Runs every step; returns the database, still open. {@code afterReopen} checks each reopened
   * database (the caller settles unknown outcomes there: a clean close made them durable or not).
   */
  CommitlaneDatabase run(Supplier<CommitlaneDatabase> opener, Consumer<CommitlaneDatabase> afterReopen) {
    CommitlaneDatabase db = opener.get();
    int bursts = 0;
    List<Step> steps = history.steps();
    for (int i = 0; i < steps.size(); i++) {
      Step step = steps.get(i);
      if (step instanceof Burst b) {
        if (bursts++ == failBeforeBurst) {
          fs.failNextForce();
        }
        runBurst(db, b);
      } else if (step instanceof PlainWrite w) {
        Batch batch = Batch.create();
        io.commitlane.storage.Store store = db.storage().defaultStore();
        w.write().writes().forEach((k, v) -> {
          if (v == null) {
            batch.remove(store, RecoveryRunner.bytes(k));
          } else {
            batch.put(store, RecoveryRunner.bytes(k), RecoveryRunner.bytes(v));
          }
        });
        db.storage().write(batch);
        acknowledged.add(w.write().id());
      } else if (step instanceof Flush) {
        db.storage().flush();
        durableThrough = i + 1;
      } else if (step instanceof Reopen) {
        closeQuietly(db);
        db = opener.get();
        durableThrough = i + 1;
        afterReopen.accept(db);
      }
    }
    return db;
  }

  private void runBurst(CommitlaneDatabase db, Burst b) {
    Map<Commit, WriteReply> first = send(db, b.commits());
    List<Commit> again = new ArrayList<>();
    first.forEach((c, reply) -> {
      if (reply instanceof Committed) {
        acknowledged.add(c.id());
      } else {
        if (notDurable(reply)) {
          notDurable++;
          unknown.add(c.id());
        } else {
          failed.add(c.id());
        }
        again.add(c);
      }
    });
    send(db, again).forEach((c, reply) -> {
      if (!(reply instanceof Committed)) {
        if (failed.contains(c.id()) && notDurable(reply)) {
          failed.remove(c.id()); // the repeat wrote it, not durably
          unknown.add(c.id());
        }
      } else if (unknown.contains(c.id())) {
        violations.add("commit " + c.id() + " was reported not durable, and its repeat was answered Committed"
            + " while the database stayed open");
        unknown.remove(c.id());
        acknowledged.add(c.id()); // the model then checks the promise the answer made
      } else {
        failed.remove(c.id());
        acknowledged.add(c.id());
      }
    });
  }

  /** What the run learned so far, for the model. */
  RecoveryModel.Outcomes outcomes() {
    return new RecoveryModel.Outcomes(acknowledged, failed, unknown, recordless);
  }

  /** Sends the writes of {@code commits} together; returns each one's reply. */
  Map<Commit, WriteReply> send(CommitlaneDatabase db, List<Commit> commits) {
    Map<Commit, CompletableFuture<WriteReply>> pending = new HashMap<>();
    for (Commit c : commits) {
      long n = ++correlation;
      pending.put(c, AskPattern.<io.commitlane.actors.DatabaseProtocol.Request, WriteReply>ask(db.ref(),
          replyTo -> write(c, n, replyTo), TIMEOUT, system.scheduler()).toCompletableFuture());
    }
    Map<Commit, WriteReply> replies = new HashMap<>();
    pending.forEach((c, f) -> replies.put(c, f.join()));
    return replies;
  }

  private static Write write(Commit c, long correlation, org.apache.pekko.actor.typed.ActorRef<WriteReply> replyTo) {
    List<Mutation> mutations = new ArrayList<>();
    c.writes().forEach((k, v) -> mutations.add(v == null ? Mutation.remove(RecoveryRunner.bytes(k))
        : Mutation.put(RecoveryRunner.bytes(k), RecoveryRunner.bytes(v))));
    LogEntries log = c.logged() ? LogEntries.of(c.log(), RecoveryRunner.bytes(Integer.toString(c.id()))) : null;
    return new Write(mutations, log, RequestId.of("c" + c.id()), correlation, replyTo);
  }

  /** The write reached the database but was not made durable: its outcome is known only after a reopen. */
  private static boolean notDurable(WriteReply reply) {
    return reply instanceof WriteRefused r && r.refusal() instanceof Failed f && (f.message().contains("NotDurableException")
        || f.message().contains("CommitOutcomeUnknownException"));
  }

  static void closeQuietly(CommitlaneDatabase db) {
    try {
      db.close();
    } catch (RuntimeException e) {
      // the log whose fsync failed says so at close; the reopen recovers
    }
  }
}
