package io.commitlane.bench.read;

import io.commitlane.storage.Batch;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Cursor;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.KeyRange;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * commitlane's reads on the calling thread (the storage module, no actors): {@code get}, {@code
 * multiGet} (one RocksDB multi-get) and a {@link Cursor} over {@code [from, to)}, each outside a
 * transaction (one view per read), on a database loaded with WAL off and flushed.
 */
final class CommitlaneReadPeer implements ReadPeer {
  @Override
  public String name() {
    return "commitlane";
  }

  @Override
  public boolean writes() {
    return true;
  }

  @Override
  public Loaded load(Path dir, int keys, byte[] value) {
    Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false));
    load(db, keys, value);
    return new Loaded() {
      @Override
      public Reader reader() {
        return new StorageReader(db);
      }

      @Override
      public Writer writer() {
        return (key, value) -> {
          try {
            db.begin().put(key, value).commitSync();
          } catch (ConflictException e) {
            // another writer's commit to the same key came between: a lost write is no read's concern
          }
        };
      }

      @Override
      public void close() {
        db.close();
      }
    };
  }

  /** The data set, in batches of {@link RawRocksReadPeer#LOAD_BATCH}, then flushed, as the raw peer loads it. */
  static void load(Database db, int keys, byte[] value) {
    Batch batch = Batch.create();
    for (int i = 0; i < keys; i++) {
      batch.put(db.defaultStore(), ReadKeys.key(i), value);
      if (batch.size() == RawRocksReadPeer.LOAD_BATCH || i == keys - 1) {
        db.write(batch);
        batch.clear();
      }
    }
    db.flush();
  }

  private record StorageReader(Database db) implements Reader {
    @Override
    public int get(byte[] key) {
      return db.get(key).length;
    }

    @Override
    public int multiGet(byte[][] keys) {
      int n = 0;
      for (byte[] v : db.multiGet(Arrays.asList(keys))) {
        n += v.length;
      }
      return n;
    }

    @Override
    public int range(byte[] from, byte[] to) {
      int n = 0;
      try (Cursor c = db.scan(KeyRange.between(from, to))) {
        while (c.hasNext()) {
          n += c.next().value().length > 0 ? 1 : 0;
        }
      }
      return n;
    }
  }
}
