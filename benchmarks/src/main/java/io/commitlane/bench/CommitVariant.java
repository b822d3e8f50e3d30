package io.commitlane.bench;

import java.nio.file.Path;

/**
 * One way of committing transactions of random keys, measured side by side with the others on a
 * fresh database directory. Every variant does the same logical work: write {@code keys} random
 * keys with the same value as one atomic commit.
 */
interface CommitVariant {
  String name();

  Session open(Path dir) throws Exception;

  /** An open database; workers are created per thread. */
  interface Session extends AutoCloseable {
    Worker worker() throws Exception;

    @Override
    void close() throws Exception;
  }

  /** Used by one thread only. */
  interface Worker extends AutoCloseable {
    /** Commit one transaction writing these keys; false when it conflicted (nothing written). */
    boolean commit(byte[][] keys, byte[] value) throws Exception;

    @Override
    default void close() throws Exception {}
  }
}
