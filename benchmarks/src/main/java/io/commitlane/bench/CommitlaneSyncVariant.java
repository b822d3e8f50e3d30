package io.commitlane.bench;

import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;

/**
 * commitlane's {@code commitSync()} on the calling thread (no actors), WAL off; optionally with a
 * no-op stage listener installed, to measure what installed stage control costs.
 */
record CommitlaneSyncVariant(String name, CommitlaneSettings settings, boolean withListener) implements CommitVariant {
  CommitlaneSyncVariant(String name, CommitlaneSettings settings) {
    this(name, settings, false);
  }

  @Override
  public Session open(Path dir) {
    Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false).withSettings(settings));
    if (withListener) {
      db.addStageListener((stage, commit) -> {});
    }
    return new Session() {
      @Override
      public Worker worker() {
        return (keys, value) -> {
          Transaction t = db.begin();
          for (byte[] k : keys) {
            t.put(k, value);
          }
          try {
            t.commitSync();
            return true;
          } catch (ConflictException e) {
            return false;
          }
        };
      }

      @Override
      public void close() {
        db.close();
      }
    };
  }
}
