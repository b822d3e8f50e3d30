package io.commitlane.bench.storage;

import io.commitlane.bench.harness.CommitVariant;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;

/**
 * commitlane's {@code commitSync()} on the calling thread (no actors), WAL off; optionally with a
 * no-op stage listener installed, to measure what installed stage control costs, or into a named
 * store instead of the default one ({@code store} non-null), to measure what store claims cost
 * (a commit claims every named store it writes; the default store is never claimed).
 */
record CommitlaneSyncVariant(String name, CommitlaneSettings settings, boolean withListener, String store) implements CommitVariant {
  CommitlaneSyncVariant(String name, CommitlaneSettings settings) {
    this(name, settings, false, null);
  }

  CommitlaneSyncVariant(String name, CommitlaneSettings settings, boolean withListener) {
    this(name, settings, withListener, null);
  }

  @Override
  public Session open(Path dir) {
    Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false).withSettings(settings));
    if (withListener) {
      db.addStageListener((stage, commit) -> {});
    }
    Store target = store == null ? db.defaultStore() : db.store(store);
    return CommitVariant.session(CommitVariant.conflictAware((keys, value) -> {
      Transaction t = db.begin();
      for (byte[] k : keys) {
        t.put(target, k, value);
      }
      t.commitSync();
    }), db::close);
  }
}
