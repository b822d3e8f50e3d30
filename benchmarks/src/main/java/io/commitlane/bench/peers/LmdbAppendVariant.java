package io.commitlane.bench.peers;

import io.commitlane.bench.harness.CommitVariant;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.lmdbjava.ByteBufferProxy;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.PutFlags;

/**
 * The LMDB peer (the upstream project benchmarks against LMDB): one LMDB write transaction per
 * record, keyed by an increasing sequence ({@code MDB_APPEND}, LMDB's fastest insert). Without
 * sync it matches "process" durability (the data reaches the OS before the commit returns);
 * with sync each commit is fsynced, as LMDB has no group commit.
 */
public record LmdbAppendVariant(boolean sync) implements CommitVariant {
  @Override
  public String name() {
    return "lmdbjava " + (sync ? "sync" : "nosync");
  }

  @Override
  public Session open(Path dir) {
    java.io.File file = dir.toFile();
    Env<ByteBuffer> env = sync
        ? Env.create(ByteBufferProxy.PROXY_SAFE).setMapSize(16L << 30).setMaxDbs(1).open(file)
        : Env.create(ByteBufferProxy.PROXY_SAFE).setMapSize(16L << 30).setMaxDbs(1).open(file, EnvFlags.MDB_NOSYNC);
    Dbi<ByteBuffer> dbi = env.openDbi("log", DbiFlags.MDB_CREATE);
    AtomicLong seq = new AtomicLong();
    return new LmdbSession(env, dbi, 8, (txn, key, val, keys) -> {
      key.clear();
      key.putLong(seq.incrementAndGet()).flip(); // inside the write txn: writers are serialized, keys stay ordered
      dbi.put(txn, key, val, PutFlags.MDB_APPEND);
    });
  }
}
