package io.commitlane.bench.read;

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

  /** Whether this peer runs the rows that read while others commit ({@link Loaded#writer()}). */
  default boolean writes() {
    return false;
  }

  /** Opens a new store in {@code dir} and loads {@code keys} entries; {@code value} is every entry's value. */
  Loaded load(Path dir, int keys, byte[] value) throws Exception;

  /** A loaded store: hands out readers, closed when the peer's rows are done. */
  interface Loaded extends AutoCloseable {
    Reader reader() throws Exception;

    /** A writer for the rows that read while others commit; null when this peer does not take part in them. */
    default Writer writer() throws Exception {
      return null;
    }

    @Override
    void close() throws Exception;
  }

  /** Commits one key at a time, as the peer commits (commitlane: a transaction; the raw peers: their write). */
  interface Writer extends AutoCloseable {
    void put(byte[] key, byte[] value) throws Exception;

    @Override
    default void close() throws Exception {}
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
