package io.commitlane.bench;

/**
 * What each commit of {@code replication}'s throughput loads does, the same for commitlane and for
 * etcd: {@code keys} random keys of {@link ShardedWriteLoad#KEY_SPACE}, each with a value of {@link
 * ShardedWriteLoad#VALUE_BYTES} random bytes.
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
     * As {@link #READ_MODIFY_WRITE} after a read barrier ({@code ReplicatedDatabase.sync()}): what
     * a replicated database actor's {@code ConditionalWrite} does with linearizable reads, its
     * default. commitlane only; etcd's read is linearizable already.
     */
    BARRIER_READ_MODIFY_WRITE
  }

  static final CommitShape ONE_KEY = new CommitShape(1, Kind.BLIND);

  CommitShape {
    if (keys < 1 || (kind != Kind.BLIND && keys != 1)) {
      throw new IllegalArgumentException("a commit writes 1 or more keys, and a read-modify-write exactly one: " + keys + " " + kind);
    }
  }

  boolean reads() {
    return kind != Kind.BLIND;
  }
}
