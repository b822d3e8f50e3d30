package io.commitlane.bench.replication;

import io.commitlane.bench.cluster.ShardedWriteLoad;
import java.nio.ByteBuffer;
import java.util.Random;

/**
 * What each commit of {@code replication}'s throughput loads does, the same for commitlane and for
 * etcd: {@code keys} distinct random keys of {@link ShardedWriteLoad#KEY_SPACE}, each with a value of
 * {@link ShardedWriteLoad#VALUE_BYTES} random bytes. Distinct because etcd refuses a transaction
 * that puts one key twice (commitlane would keep the last value); both sides draw them here.
 */
record CommitShape(int keys, Kind kind) {
  enum Kind {
    /** Writes without reading: nothing can conflict. */
    BLIND,
    /**
     * Reads the key through the commit's transaction, then writes it back: commitlane reads the
     * replica of the client's node (a follower's, possibly a little behind) and validates at
     * apply; etcd reads (linearizable), then commits a transaction conditional on the key's
     * revision.
     */
    READ_MODIFY_WRITE,
    /**
     * Reads the key from the replica of the client's node as it is ({@code ReadConsistency.LOCAL}),
     * then commits a write that expects the value read, checked by every replica at the commit's
     * place in the log ({@code ReplicatedTransaction.expect}): what a replicated database actor's
     * {@code ConditionalWrite} sends. A read that was behind fails the commit's expectation, counted
     * as a conflict. commitlane only.
     */
    EXPECTING_READ_MODIFY_WRITE
  }

  static final CommitShape ONE_KEY = new CommitShape(1, Kind.BLIND);

  CommitShape {
    if (keys < 1 || (kind != Kind.BLIND && keys != 1)) {
      throw new IllegalArgumentException("a commit writes 1 or more keys, and a read-modify-write exactly one: " + keys + " " + kind);
    }
  }

  /** The keys of one commit, 8-byte big-endian numbers below {@link ShardedWriteLoad#KEY_SPACE}, no two equal. */
  byte[][] drawKeys(Random rnd) {
    long[] drawn = new long[keys];
    byte[][] out = new byte[keys][];
    for (int k = 0; k < keys; k++) {
      long key;
      do {
        key = rnd.nextInt(ShardedWriteLoad.KEY_SPACE);
      } while (contains(drawn, k, key));
      drawn[k] = key;
      out[k] = ByteBuffer.allocate(8).putLong(key).array();
    }
    return out;
  }

  private static boolean contains(long[] drawn, int count, long key) {
    for (int i = 0; i < count; i++) {
      if (drawn[i] == key) {
        return true;
      }
    }
    return false;
  }

  boolean reads() {
    return kind != Kind.BLIND;
  }
}
