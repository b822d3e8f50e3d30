package io.commitlane.bench.read;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The raw rocksdbjni peer for reads: {@code db.get}, {@code multiGetAsList} (one JNI call) and a
 * {@link RocksIterator} bounded by {@code iterate_upper_bound}, on a plain RocksDB loaded with WAL
 * off and flushed, with rocksdbjni's default options (as commitlane's).
 */
final class RawRocksReadPeer implements ReadPeer {
  static final int LOAD_BATCH = 10_000;

  @Override
  public String name() {
    return "raw rocksdbjni";
  }

  @Override
  public boolean writes() {
    return true;
  }

  @Override
  public Loaded load(Path dir, int keys, byte[] value) throws Exception {
    Options options = new Options().setCreateIfMissing(true);
    RocksDB db = RocksDB.open(options, dir.toString());
    try (WriteOptions wo = new WriteOptions().setDisableWAL(true); WriteBatch batch = new WriteBatch();
        FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      for (int i = 0; i < keys; i++) {
        batch.put(ReadKeys.key(i), value);
        if (batch.count() == LOAD_BATCH || i == keys - 1) {
          db.write(wo, batch);
          batch.clear();
        }
      }
      db.flush(fo);
    }
    return new Loaded() {
      @Override
      public Reader reader() {
        return new RawReader(db);
      }

      @Override
      public Writer writer() {
        WriteOptions wo = new WriteOptions().setDisableWAL(true);
        WriteBatch batch = new WriteBatch();
        return new Writer() {
          @Override
          public void put(byte[] key, byte[] value) throws Exception {
            batch.clear();
            batch.put(key, value);
            db.write(wo, batch);
          }

          @Override
          public void close() {
            batch.close();
            wo.close();
          }
        };
      }

      @Override
      public void close() {
        db.close();
        options.close();
      }
    };
  }

  private static final class RawReader implements Reader {
    private final RocksDB db;

    RawReader(RocksDB db) {
      this.db = db;
    }

    @Override
    public int get(byte[] key) throws Exception {
      return db.get(key).length;
    }

    @Override
    public int multiGet(byte[][] keys) throws Exception {
      List<byte[]> values = db.multiGetAsList(Arrays.asList(keys));
      int n = 0;
      for (byte[] v : values) {
        n += v.length;
      }
      return n;
    }

    @Override
    public int range(byte[] from, byte[] to) {
      try (Slice upper = new Slice(to); ReadOptions ro = new ReadOptions().setIterateUpperBound(upper);
          RocksIterator it = db.newIterator(ro)) {
        int n = 0;
        for (it.seek(from); it.isValid(); it.next()) {
          n += it.key().length + it.value().length > 0 ? 1 : 0;
        }
        return n;
      }
    }
  }
}
