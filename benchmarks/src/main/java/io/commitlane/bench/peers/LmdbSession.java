package io.commitlane.bench.peers;

import io.commitlane.bench.harness.CommitVariant;
import java.nio.ByteBuffer;
import org.lmdbjava.Dbi;
import org.lmdbjava.Env;
import org.lmdbjava.Txn;

/**
 * An LMDB environment and its one database as a benchmark session: each worker gets direct key
 * and value buffers of its own, and every commit is one LMDB write transaction.
 */
final class LmdbSession implements CommitVariant.Session {
  /** What one commit does inside its write transaction, with the worker's buffers ({@code value} holds the value). */
  interface Writes {
    void apply(Txn<ByteBuffer> txn, ByteBuffer key, ByteBuffer value, byte[][] keys);
  }

  private final Env<ByteBuffer> env;
  private final Dbi<ByteBuffer> dbi;
  private final int keyBufferBytes;
  private final Writes writes;

  LmdbSession(Env<ByteBuffer> env, Dbi<ByteBuffer> dbi, int keyBufferBytes, Writes writes) {
    this.env = env;
    this.dbi = dbi;
    this.keyBufferBytes = keyBufferBytes;
    this.writes = writes;
  }

  @Override
  public CommitVariant.Worker worker() {
    ByteBuffer key = ByteBuffer.allocateDirect(keyBufferBytes);
    ReusableDirectBuffer values = new ReusableDirectBuffer();
    return (keys, value) -> {
      ByteBuffer val = values.of(value);
      try (Txn<ByteBuffer> txn = env.txnWrite()) {
        writes.apply(txn, key, val, keys);
        txn.commit();
      }
      return true;
    };
  }

  @Override
  public void close() {
    dbi.close();
    env.close();
  }
}
