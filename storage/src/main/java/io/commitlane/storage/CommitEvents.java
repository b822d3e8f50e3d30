package io.commitlane.storage;

/**
 * The Flight Recorder events of one database's commit path. Each {@code begin} method checks
 * whether its event type is enabled and returns null when it is not, so a commit with the events
 * disabled pays one check per stage and takes no timestamp; the matching end method ignores null.
 * Only transactions are reported (a non-transactional write has no id to follow).
 */
final class CommitEvents {
  static final String VALIDATED = "VALIDATED";
  static final String CONFLICTED = "CONFLICTED";
  static final String WRITTEN = "WRITTEN";
  static final String FAILED = "FAILED";

  private final String database;

  CommitEvents(String database) {
    this.database = database;
  }

  CommitValidatedEvent beginValidation(PendingCommit c) {
    if (!CommitValidatedEvent.TYPE.isEnabled() || !c.isTransactional()) {
      return null;
    }
    CommitValidatedEvent e = new CommitValidatedEvent();
    e.begin();
    return e;
  }

  void validated(CommitValidatedEvent e, PendingCommit c, String outcome, int groupSize) {
    if (e == null) {
      return;
    }
    e.end();
    if (e.shouldCommit()) {
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
    if (c.logName() == null || !LogAppendedEvent.TYPE.isEnabled()) {
      return null;
    }
    LogAppendedEvent e = new LogAppendedEvent();
    e.begin();
    return e;
  }

  void appended(LogAppendedEvent e, PendingCommit c) {
    if (e == null) {
      return;
    }
    e.end();
    if (e.shouldCommit()) {
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
    if (!CommitWrittenEvent.TYPE.isEnabled() || !c.isTransactional()) {
      return null;
    }
    CommitWrittenEvent e = new CommitWrittenEvent();
    e.begin();
    return e;
  }

  void written(CommitWrittenEvent e, PendingCommit c, String outcome, int groupSize) {
    if (e == null) {
      return;
    }
    e.end();
    if (e.shouldCommit()) {
      e.database = database;
      e.transactionId = c.transactionId();
      e.outcome = outcome;
      e.keysWritten = c.writeCount();
      e.groupSize = groupSize;
      e.commit();
    }
  }

  StoreDroppedEvent beginDrop() {
    if (!StoreDroppedEvent.TYPE.isEnabled()) {
      return null;
    }
    StoreDroppedEvent e = new StoreDroppedEvent();
    e.begin();
    return e;
  }

  void dropped(StoreDroppedEvent e, Store s, String outcome) {
    if (e == null) {
      return;
    }
    e.end();
    if (e.shouldCommit()) {
      e.database = database;
      e.store = s.name();
      e.generation = s.generation();
      e.outcome = outcome;
      e.commit();
    }
  }
}
