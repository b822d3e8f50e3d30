package io.commitlane.bench.harness;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import java.nio.file.Path;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * {@code CommitlaneDatabase.commitSync(txn)} on the worker threads: no hand-off. Unlike {@link
 * CommitlaneSyncVariant} (storage only) it opens the database as the pipeline rows do, so the
 * transaction log and its durability wait apply to it the same way.
 */
public record FacadeCommitSyncVariant(String name, ActorSystem<?> system, PipelineSettings settings, boolean log, boolean readFirst)
    implements CommitVariant {
  public FacadeCommitSyncVariant(String name, ActorSystem<?> system, PipelineSettings settings, boolean log) {
    this(name, system, settings, log, false);
  }

  @Override
  public Session open(Path dir) {
    CommitlaneDatabase db = Commitlane.get(system).open(dir, settings);
    return CommitVariant.session(worker(db, log, readFirst), db::close);
  }

  /** A worker committing with {@code commitSync} to a database the caller opened (and closes). */
  public static Worker worker(CommitlaneDatabase db, boolean log, boolean readFirst) {
    return CommitVariant.conflictAware((keys, value) -> db.commitSync(BenchTransactions.begin(db, keys, value, log, readFirst)));
  }
}
