package io.commitlane.bench.read;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.lmdbjava.ByteBufferProxy;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.CursorIterable.KeyVal;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.KeyRange;
import org.lmdbjava.Txn;

/**
 * The LMDB peer for reads (lmdbjava): every read is one read transaction, as a commitlane read
 * outside a transaction is one snapshot; values are copied out of the map into a heap array, as
 * RocksDB's Java API returns them.
 */
final class LmdbReadPeer implements ReadPeer {
  private static final long MAP_SIZE = 64L << 30; // sparse: only written pages take disk
  private static final int LOAD_BATCH = 10_000;

  @Override
  public String name() {
    return "lmdbjava";
  }

  @Override
  public boolean writes() {
    return true;
  }

  @Override
  public Loaded load(Path dir, int keys, byte[] value) throws IOException {
    Files.createDirectories(dir);
    Env<ByteBuffer> env = Env.create(ByteBufferProxy.PROXY_SAFE).setMapSize(MAP_SIZE).setMaxDbs(1).setMaxReaders(512)
        .open(dir.toFile(), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOTLS);
    Dbi<ByteBuffer> dbi = env.openDbi("data", DbiFlags.MDB_CREATE);
    ByteBuffer key = ByteBuffer.allocateDirect(8);
    ByteBuffer val = ByteBuffer.allocateDirect(value.length);
    val.put(value).flip();
    for (int i = 0; i < keys; i += LOAD_BATCH) {
      try (Txn<ByteBuffer> txn = env.txnWrite()) {
        for (int j = i; j < Math.min(keys, i + LOAD_BATCH); j++) {
          key.clear();
          key.put(ReadKeys.key(j)).flip();
          val.rewind();
          dbi.put(txn, key, val);
        }
        txn.commit();
      }
    }
    return new Loaded() {
      @Override
      public Reader reader() {
        return new LmdbReader(env, dbi);
      }

      @Override
      public Writer writer() {
        ByteBuffer k = ByteBuffer.allocateDirect(8);
        ByteBuffer v = ByteBuffer.allocateDirect(value.length);
        return (key, bytes) -> {
          k.clear();
          k.put(key).flip();
          v.clear();
          v.put(bytes).flip();
          try (Txn<ByteBuffer> txn = env.txnWrite()) {
            dbi.put(txn, k, v);
            txn.commit();
          }
        };
      }

      @Override
      public void close() {
        dbi.close();
        env.close();
      }
    };
  }

  private static final class LmdbReader implements Reader {
    private final Env<ByteBuffer> env;
    private final Dbi<ByteBuffer> dbi;
    private final ByteBuffer key = ByteBuffer.allocateDirect(8);
    private final ByteBuffer to = ByteBuffer.allocateDirect(8);

    LmdbReader(Env<ByteBuffer> env, Dbi<ByteBuffer> dbi) {
      this.env = env;
      this.dbi = dbi;
    }

    @Override
    public int get(byte[] k) {
      try (Txn<ByteBuffer> txn = env.txnRead()) {
        return copy(dbi.get(txn, direct(key, k))).length;
      }
    }

    @Override
    public int multiGet(byte[][] keys) {
      int n = 0;
      try (Txn<ByteBuffer> txn = env.txnRead()) {
        for (byte[] k : keys) {
          n += copy(dbi.get(txn, direct(key, k))).length;
        }
      }
      return n;
    }

    @Override
    public int range(byte[] from, byte[] until) {
      int n = 0;
      try (Txn<ByteBuffer> txn = env.txnRead();
          CursorIterable<ByteBuffer> c = dbi.iterate(txn, KeyRange.closedOpen(direct(key, from), direct(to, until)))) {
        for (KeyVal<ByteBuffer> kv : c) {
          n += copy(kv.key()).length + copy(kv.val()).length > 0 ? 1 : 0;
        }
      }
      return n;
    }

    private static ByteBuffer direct(ByteBuffer buffer, byte[] bytes) {
      buffer.clear();
      buffer.put(bytes).flip();
      return buffer;
    }

    private static byte[] copy(ByteBuffer b) {
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    }
  }
}
