package io.commitlane.testkit.pekko;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.testkit.RecoveryHistory;
import io.commitlane.storage.Batch;
import io.commitlane.storage.Cursor;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.RecoveryHistory.Burst;
import io.commitlane.testkit.RecoveryHistory.Commit;
import io.commitlane.testkit.RecoveryHistory.Flush;
import io.commitlane.testkit.RecoveryHistory.PlainWrite;
import io.commitlane.testkit.RecoveryHistory.Reopen;
import io.commitlane.testkit.RecoveryHistory.Step;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Runs a {@link RecoveryHistory} against a database: each burst's commits are submitted together
 * through the pipeline (so they may merge into one write group) and awaited before the next step.
 */
public final class RecoveryRunner {
  /** What the runner tells its caller as it goes. */
  public interface Listener {
    void succeeded(Commit c);

    void failed(Commit c, Throwable cause);

    /** Every step before {@code steps} is durable now (a flush or reopen completed). */
    default void durableThrough(int steps) {}

    /** Step {@code index} is about to run. */
    default void stepStarting(int index) {}
  }

  private final RecoveryHistory history;
  private final Supplier<CommitlaneDatabase> opener;
  private CommitlaneDatabase db;

  public RecoveryRunner(RecoveryHistory history, Supplier<CommitlaneDatabase> opener) {
    this.history = history;
    this.opener = opener;
  }

  /** Runs every step; returns the database, still open. */
  public CommitlaneDatabase run(Listener listener) {
    db = opener.get();
    List<Step> steps = history.steps();
    for (int i = 0; i < steps.size(); i++) {
      listener.stepStarting(i);
      Step step = steps.get(i);
      if (step instanceof Burst b) {
        runBurst(b, listener);
      } else if (step instanceof PlainWrite w) {
        Batch batch = Batch.create();
        w.write().writes().forEach((k, v) -> {
          if (v == null) {
            batch.remove(db.storage().defaultStore(), bytes(k));
          } else {
            batch.put(db.storage().defaultStore(), bytes(k), bytes(v));
          }
        });
        db.storage().write(batch);
        listener.succeeded(w.write());
      } else if (step instanceof Flush) {
        db.storage().flush();
        listener.durableThrough(i + 1);
      } else if (step instanceof Reopen) {
        db.close();
        db = opener.get();
        listener.durableThrough(i + 1);
      }
    }
    return db;
  }

  /**
   * Half the commits scan (tracked) the one key they write first before writing it, so scanning
   * transactions are in every history; a commit's keys are its own within a burst, so the scan
   * adds no conflict a history would not have.
   */
  private static void scanOwnFirstKey(Transaction t, Commit c) {
    String first = c.writes().keySet().iterator().next();
    try (Cursor own = t.scan(KeyRange.all().from(bytes(first)).toInclusive(bytes(first)))) {
      own.forEachRemaining(kv -> { });
    }
  }

  private void runBurst(Burst b, Listener listener) {
    List<CompletableFuture<?>> done = new ArrayList<>();
    for (Commit c : b.commits()) {
      Transaction t = db.begin().tag(c.id());
      if (c.logged()) {
        t.useLog(c.log()).addLogEntry(bytes(Integer.toString(c.id())));
      }
      if (c.id() % 2 == 0) {
        scanOwnFirstKey(t, c);
      }
      c.writes().forEach((k, v) -> {
        if (v == null) {
          t.remove(bytes(k));
        } else {
          t.put(bytes(k), bytes(v));
        }
      });
      done.add(db.commit(t).toCompletableFuture().whenComplete((r, err) -> {
        if (err == null) {
          listener.succeeded(c);
        } else {
          listener.failed(c, err);
        }
      }));
    }
    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
  }

  public static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  public static String string(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
