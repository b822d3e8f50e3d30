package io.commitlane.testkit;

import io.commitlane.storage.CommitStage;
import io.commitlane.storage.internal.commit.PendingCommit;
import java.util.ArrayList;
import java.util.List;

/** The stage events a {@link StageControl} saw, in the order the committing threads reported them. */
public final class StageTrace {
  /** One stage event. {@code tag} may be null. */
  public record Event(CommitStage stage, long transactionId, Object tag, String thread) {
    @Override
    public String toString() {
      return (tag != null ? tag : "txn " + transactionId) + "@" + stage;
    }
  }

  private final List<Event> events = new ArrayList<>();

  synchronized void record(CommitStage stage, PendingCommit c) {
    events.add(new Event(stage, c.transactionId(), c.tag(), Thread.currentThread().getName()));
  }

  public synchronized List<Event> events() {
    return List.copyOf(events);
  }

  /** The tags that reached {@code stage}, in the order they reached it. */
  public synchronized List<Object> order(CommitStage stage) {
    List<Object> tags = new ArrayList<>();
    for (Event e : events) {
      if (e.stage() == stage) {
        tags.add(e.tag());
      }
    }
    return tags;
  }

  public synchronized void clear() {
    events.clear();
  }
}
