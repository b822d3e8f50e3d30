package io.commitlane.actors.internal.pipeline;

import io.commitlane.actors.PipelineMode;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.WriteGroupSettings;
import io.commitlane.storage.Database;
import java.util.List;
import org.apache.pekko.actor.typed.Behavior;

/**
 * The commit-step strategy of a pipeline, chosen once from its mode when it opens: which queues
 * have commit executors, and what each executor does with a commit it takes. {@code threads}
 * ({@link OneLane}): every executor runs whole commits from the admission queue, merging queued
 * ones into write groups. {@code two-lane} ({@link TwoLanes}): the admission queue's one
 * executor is the log lane, which validates and logs each commit ({@link CommitRunner#prepare})
 * and hands it to the {@link WriteLane}, whose executors write it ({@link
 * CommitRunner#writePrepared}); neither merges groups. The supervisor grows, dismisses and stops
 * {@link #queues()} alike and asks this for each executor, so nothing else looks at the mode.
 */
public abstract sealed class CommitLanes permits CommitLanes.OneLane, CommitLanes.TwoLanes {
  final CommitQueue admission;

  private CommitLanes(CommitQueue admission) {
    this.admission = admission;
  }

  static CommitLanes of(Database db, PipelineSettings settings) {
    if (settings.mode() == PipelineMode.TWO_LANE) {
      return new TwoLanes(new CommitQueue(db.path(), settings.commitQueueCapacity(), 1, new BriefWork(db)),
          new WriteLane(new CommitQueue(db.path(), settings.commitQueueCapacity(), settings.commitThreads(), new BriefWork(db))));
    }
    return new OneLane(new CommitQueue(db.path(), settings.commitQueueCapacity(), settings.commitThreads(), new BriefWork(db)));
  }

  /** The queues that have commit executors, the admission queue first. */
  public abstract List<CommitQueue> queues();

  /** The write lane, or null when commits run whole. */
  abstract WriteLane writes();

  /** The behaviour of executor {@code n} of {@code lane}, one of {@link #queues()}. */
  public abstract Behavior<CommitExecutor.Command> executor(Pipeline pipeline, CommitQueue lane, int n);

  /**
   * No executor thread could be started for {@code lane}: its commits run on the threads that
   * queue them from now on, and what is queued now runs here.
   */
  public abstract void runInline(Pipeline pipeline, CommitQueue lane);

  /** {@code threads}: one lane of executors running whole commits. */
  static final class OneLane extends CommitLanes {
    private final List<CommitQueue> queues;

    OneLane(CommitQueue admission) {
      super(admission);
      this.queues = List.of(admission);
    }

    @Override
    public List<CommitQueue> queues() {
      return queues;
    }

    @Override
    WriteLane writes() {
      return null;
    }

    @Override
    public Behavior<CommitExecutor.Command> executor(Pipeline pipeline, CommitQueue lane, int n) {
      PipelineSettings s = pipeline.settings();
      return CommitExecutor.create(lane, pipeline.runner(), pipeline.callbacks(), s.executorBatch(), s.writeGroups(),
          s.executorSpin().toNanos(), "commitlane-commit-" + pipeline.name() + "-" + n);
    }

    @Override
    public void runInline(Pipeline pipeline, CommitQueue lane) {
      pipeline.runInline();
    }
  }

  /** {@code two-lane}: the log lane (the admission queue's one executor), then the write lane. */
  static final class TwoLanes extends CommitLanes {
    private final WriteLane writes;
    private final List<CommitQueue> queues;

    TwoLanes(CommitQueue admission, WriteLane writes) {
      super(admission);
      this.writes = writes;
      this.queues = List.of(admission, writes.queue);
    }

    @Override
    public List<CommitQueue> queues() {
      return queues;
    }

    @Override
    WriteLane writes() {
      return writes;
    }

    @Override
    public Behavior<CommitExecutor.Command> executor(Pipeline pipeline, CommitQueue lane, int n) {
      PipelineSettings s = pipeline.settings();
      CommitRunner runner = pipeline.runner();
      if (lane == admission) {
        return CommitExecutor.create(lane, runner, r -> runner.prepare(r, writes), pipeline.callbacks(), s.executorBatch(),
            WriteGroupSettings.off(), s.executorSpin().toNanos(), "commitlane-log-lane-" + pipeline.name());
      }
      return CommitExecutor.create(lane, runner, runner::writePrepared, pipeline.callbacks(), s.executorBatch(),
          WriteGroupSettings.off(), s.executorSpin().toNanos(), "commitlane-commit-" + pipeline.name() + "-" + n);
    }

    @Override
    public void runInline(Pipeline pipeline, CommitQueue lane) {
      if (lane == admission) {
        pipeline.runInline(); // whole commits on their callers' threads: there is no log lane to prepare them
      } else {
        writes.runInline(pipeline.runner());
      }
    }
  }
}
