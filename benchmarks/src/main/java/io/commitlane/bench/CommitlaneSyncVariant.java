package io.commitlane.bench;

import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;

/** commitlane's {@code commitSync()} on the calling thread (no actors), WAL off. */
record CommitlaneSyncVariant(String name, CommitlaneSettings settings) implements CommitVariant {
  @Override
  public Session open(Path dir) {
    Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false).withSettings(settings));
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
