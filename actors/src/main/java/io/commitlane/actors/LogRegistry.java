package io.commitlane.actors;

import io.commitlane.storage.Database;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * One {@link TransactionLogs} per database path in the process, shared by every facade of that
 * path: the commit hook is per path, so two sets of logs would append every record twice.
 */
final class LogRegistry {
  private static final Map<Path, Entry> OPEN = new HashMap<>();

  private static final class Entry {
    final TransactionLogs logs;
    final Database.Registration hook;
    int references;

    Entry(TransactionLogs logs, Database.Registration hook) {
      this.logs = logs;
      this.hook = hook;
    }
  }

  private LogRegistry() {}

  static synchronized TransactionLogs acquire(Database db, PipelineSettings settings) {
    Entry e = OPEN.get(db.path());
    if (e == null) {
      TransactionLogs logs = TransactionLogs.open(db, settings.log(), settings.replay());
      e = new Entry(logs, db.addCommitHook(logs));
      OPEN.put(db.path(), e);
    }
    e.references++;
    return e.logs;
  }

  static synchronized void release(Database db) {
    Entry e = OPEN.get(db.path());
    if (e != null && --e.references == 0) {
      OPEN.remove(db.path());
      e.hook.close();
      e.logs.close();
    }
  }
}
