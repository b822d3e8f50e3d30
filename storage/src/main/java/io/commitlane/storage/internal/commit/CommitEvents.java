package io.commitlane.storage.internal.commit;

import io.commitlane.storage.Store;
import java.util.function.Supplier;
import jdk.jfr.Event;

/**
 * The Flight Recorder events of one database's commit path. Each {@code begin} method checks
 * whether its event type is enabled and returns null when it is not, so a commit with the events
 * disabled pays one check per stage and takes no timestamp; the matching end method ignores null.
 * Only transactions are reported (a non-transactional write has no id to follow).
 */
public final class CommitEvents {
  static final String VALIDATED = "VALIDATED";
  static final String CONFLICTED = "CONFLICTED";
  static final String WRITTEN = "WRITTEN";
  static final String FAILED = "FAILED";

  private final String database;

  public CommitEvents(String database) {
    this.database = database;
  }

  CommitValidatedEvent beginValidation(PendingCommit c) {
    return started(CommitValidatedEvent.TYPE.isEnabled() && c.isTransactional(), CommitValidatedEvent::new);
  }

  void validated(CommitValidatedEvent e, PendingCommit c, String outcome, int groupSize) {
    if (ended(e)) {
      e.database = database;
      e.transactionId = c.transactionId();
      e.outcome = outcome;
      e.keysWritten = c.writeCount();
      e.keysRead = c.reads() == null ? 0 : c.reads().size();
      e.groupSize = groupSize;
      e.commit();
    }
  }

  LogAppendedEvent beginAppend(PendingCommit c) {
    return started(c.logName() != null && LogAppendedEvent.TYPE.isEnabled(), LogAppendedEvent::new);
  }

  void appended(LogAppendedEvent e, PendingCommit c) {
    if (ended(e)) {
      e.database = database;
      e.transactionId = c.transactionId();
      e.log = c.logName();
      e.entries = c.logEntries().size();
      e.commit();
    }
  }

  static boolean writesEnabled() {
    return CommitWrittenEvent.TYPE.isEnabled();
  }

  CommitWrittenEvent beginWrite(PendingCommit c) {
    return started(CommitWrittenEvent.TYPE.isEnabled() && c.isTransactional(), CommitWrittenEvent::new);
  }

  void written(CommitWrittenEvent e, PendingCommit c, String outcome, int groupSize) {
    if (ended(e)) {
      e.database = database;
      e.transactionId = c.transactionId();
      e.outcome = outcome;
      e.keysWritten = c.writeCount();
      e.groupSize = groupSize;
      e.commit();
    }
  }

  public StoreDroppedEvent beginDrop() {
    return started(StoreDroppedEvent.TYPE.isEnabled(), StoreDroppedEvent::new);
  }

  public void dropped(StoreDroppedEvent e, Store s, String outcome) {
    if (ended(e)) {
      e.database = database;
      e.store = s.name();
      e.generation = s.generation();
      e.outcome = outcome;
      e.commit();
    }
  }

  /** A begun event, or null (nothing allocated) when it is not {@code enabled}. */
  private static <E extends Event> E started(boolean enabled, Supplier<E> event) {
    if (!enabled) {
      return null;
    }
    E e = event.get();
    e.begin();
    return e;
  }

  /** Ends a begun event; true when the recording wants it (then fill its fields and commit it). */
  private static boolean ended(Event e) {
    if (e == null) {
      return false;
    }
    e.end();
    return e.shouldCommit();
  }
}
