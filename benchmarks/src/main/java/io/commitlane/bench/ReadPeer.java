package io.commitlane.bench;

import java.nio.file.Path;

/**
 * One store measured by {@code ./commitlane reads}: it loads the same data set as every other
 * peer (8-byte big-endian keys {@code 0..n-1}, one value size), then serves the reads the bench
 * times, each on a {@link Reader} that belongs to one thread.
 */
interface ReadPeer {
  String name();

  /** Whether this peer runs {@code row} (a peer that only streams ranges skips point reads). */
  default boolean supports(ReadRow row) {
    return true;
  }

  /** Opens a new store in {@code dir} and loads {@code keys} entries; {@code value} is every entry's value. */
  Loaded load(Path dir, int keys, byte[] value) throws Exception;

  /** A loaded store: hands out readers, closed when the peer's rows are done. */
  interface Loaded extends AutoCloseable {
    Reader reader() throws Exception;

    @Override
    void close() throws Exception;
  }

  /**
   * The reads, each returning a number derived from what it read (bytes or entries), so that no
   * read can be optimised away and so that a peer that reads nothing is seen in the totals.
   */
  interface Reader extends AutoCloseable {
    /** One point read of a key that exists; the value's length. */
    int get(byte[] key) throws Exception;

    /** One batched read of {@code keys}; the values' total length. */
    int multiGet(byte[][] keys) throws Exception;

    /** The entries of {@code [from, to)} in key order, keys and values; how many were read. */
    int range(byte[] from, byte[] to) throws Exception;

    @Override
    default void close() throws Exception {}
  }
}
