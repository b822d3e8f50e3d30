package io.commitlane.actors.internal.pipeline;

import io.commitlane.actors.AdmissionTicket;
import io.commitlane.actors.PipelineMode;
import java.util.concurrent.CountDownLatch;

/**
 * The write lane of a two-lane pipeline ({@link PipelineMode#TWO_LANE}): commits the log lane
 * validated and logged wait here for a commit executor to write them to RocksDB. It is bounded
 * like the admission queue: while it is full the log lane waits on its own thread, takes nothing
 * more from the admission queue, and the admission queue fills up and refuses (or makes streams
 * wait), so a slow RocksDB becomes backpressure instead of a growing backlog.
 */
public final class WriteLane {
  public final CommitQueue queue;
  /** Set once no executor could be started for this lane: the log lane writes its commits itself. */
  private volatile boolean inline;

  WriteLane(CommitQueue queue) {
    this.queue = queue;
  }

  /** Runs on the log lane's thread, which may wait here for room (never a dispatcher thread). */
  void handOff(CommitRequest r, CommitRunner runner) {
    if (inline && queue.executors() == 0) {
      runner.writePrepared(r).deliver();
      return;
    }
    if (queue.handOff(r, null) == CommitQueue.Admission.ADMITTED) {
      return;
    }
    CountDownLatch granted = new CountDownLatch(1);
    AdmissionTicket ticket = queue.awaitSpace(granted::countDown);
    boolean interrupted = false;
    while (granted.getCount() > 0) {
      try {
        granted.await();
      } catch (InterruptedException e) {
        interrupted = true; // the commit holds its locks and its log record: it must reach the lane
      }
    }
    queue.handOff(r, ticket);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** No executor thread could be started for this lane: write on the log lane, and what is queued now here. */
  public void runInline(CommitRunner runner) {
    inline = true;
    for (CommitRequest r; (r = queue.poll()) != null; ) {
      runner.writePrepared(r).deliver();
    }
  }
}
