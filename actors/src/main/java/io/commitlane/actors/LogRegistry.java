package io.commitlane.actors;

import io.commitlane.storage.Database;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * One {@link TransactionLogs} per database path in the process, shared by every facade of that
 * path: the commit hook is per path, so two sets of logs would append every record twice. The
 * logs hold a storage handle of their own, so a facade that closes first does not close the
 * handle the logs still write through.
 */
final class LogRegistry {
  private static final Map<Path, Entry> OPEN = new HashMap<>();

  private static final class Entry {
    final Database handle;
    final TransactionLogs logs;
    final Database.Registration hook;
    int references;

    Entry(Database handle, TransactionLogs logs, Database.Registration hook) {
      this.handle = handle;
      this.logs = logs;
      this.hook = hook;
    }
  }

  private LogRegistry() {}

  static synchronized TransactionLogs acquire(Database db, PipelineSettings settings) {
    Entry e = OPEN.get(db.path());
    if (e == null) {
      Database handle = Database.open(db.path(), db.options());
      try {
        TransactionLogs logs = TransactionLogs.open(handle, settings.log(), settings.replay());
        e = new Entry(handle, logs, handle.addCommitHook(logs));
      } catch (RuntimeException | Error failure) {
        handle.close();
        throw failure;
      }
      OPEN.put(db.path(), e);
    }
    e.references++;
    return e.logs;
  }

  /** Releases one reference; the last closes the logs and their handle (throws what their close threw). */
  static synchronized void release(Database db) {
    Entry e = OPEN.get(db.path());
    if (e != null && --e.references == 0) {
      OPEN.remove(db.path());
      try {
        e.logs.close(); // flushes and records the flushed positions while the hook still sees late commits
      } finally {
        try {
          e.hook.close();
        } finally {
          e.handle.close();
        }
      }
    }
  }
}
