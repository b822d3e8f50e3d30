package io.commitlane.bench.peers;

import io.commitlane.bench.harness.CommitVariant;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.lmdbjava.ByteBufferProxy;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;

/**
 * The LMDB peer for commits (the upstream project benchmarks against LMDB): one LMDB write
 * transaction per commit that puts the same random keys with the same value as every other
 * variant. {@code MDB_NOSYNC}: the data reaches the OS at commit but is not fsynced, the closest
 * LMDB comes to RocksDB without a synced WAL. LMDB allows one writer at a time, so concurrent
 * workers queue on its write lock; it never conflicts.
 */
public final class LmdbPutVariant implements CommitVariant {
  private static final long MAP_SIZE = 64L << 30; // sparse: only written pages take disk

  private final boolean readFirst;

  public LmdbPutVariant() {
    this(false);
  }

  /** With {@code readFirst}, each write transaction reads its keys before it puts them. */
  public LmdbPutVariant(boolean readFirst) {
    this.readFirst = readFirst;
  }

  @Override
  public String name() {
    return "lmdbjava";
  }

  @Override
  public Session open(Path dir) {
    Env<ByteBuffer> env = Env.create(ByteBufferProxy.PROXY_SAFE).setMapSize(MAP_SIZE).setMaxDbs(1).setMaxReaders(512)
        .open(dir.toFile(), EnvFlags.MDB_NOSYNC);
    Dbi<ByteBuffer> dbi = env.openDbi("data", DbiFlags.MDB_CREATE);
    return new LmdbSession(env, dbi, 64, (txn, key, val, keys) -> {
      for (int i = 0; readFirst && i < keys.length; i++) {
        key.clear();
        key.put(keys[i]).flip();
        dbi.get(txn, key);
      }
      for (byte[] k : keys) {
        key.clear();
        key.put(k).flip();
        dbi.put(txn, key, val);
        val.rewind();
      }
    });
  }
}
