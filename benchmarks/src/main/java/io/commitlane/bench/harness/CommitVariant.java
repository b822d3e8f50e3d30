package io.commitlane.bench.harness;

import io.commitlane.storage.ConflictException;
import java.nio.file.Path;

/**
 * One way of committing transactions of random keys, measured side by side with the others on a
 * fresh database directory. Every variant does the same logical work: write {@code keys} random
 * keys with the same value as one atomic commit.
 */
public interface CommitVariant {
  String name();

  Session open(Path dir) throws Exception;

  /** An open database; workers are created per thread. */
  interface Session extends AutoCloseable {
    Worker worker() throws Exception;

    @Override
    void close() throws Exception;
  }

  /** A session whose workers are all {@code worker}, closed by {@code close}. */
  static Session session(Worker worker, AutoCloseable close) {
    return new Session() {
      @Override
      public Worker worker() {
        return worker;
      }

      @Override
      public void close() throws Exception {
        close.close();
      }
    };
  }

  /** A worker committing with {@code commit}: true when it committed, false when it threw {@link ConflictException}. */
  static Worker conflictAware(ThrowingCommit commit) {
    return (keys, value) -> {
      try {
        commit.run(keys, value);
        return true;
      } catch (ConflictException e) {
        return false;
      }
    };
  }

  /** One commit of the given keys and value. */
  interface ThrowingCommit {
    void run(byte[][] keys, byte[] value) throws Exception;
  }

  /** Used by one thread only. */
  interface Worker extends AutoCloseable {
    /** Commit one transaction writing these keys; false when it conflicted (nothing written). */
    boolean commit(byte[][] keys, byte[] value) throws Exception;

    @Override
    default void close() throws Exception {}
  }
}
