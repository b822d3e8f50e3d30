package io.commitlane.bench.read;

import io.commitlane.bench.cli.Checks;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A row of {@code ./commitlane reads}: one kind of read, on a number of threads, that every peer
 * runs on the same data set. {@link #read} does one operation and returns what it read; rows that
 * read several entries per operation say so in {@link #entriesPerOp}.
 */
enum ReadRow {
  GET_RANDOM("get-random", "point get, random keys", 1),
  GET_RANDOM_4("get-random-4t", "point get, random keys, 4 threads", 4),
  GET_SEQUENTIAL("get-sequential", "point get, sequential keys", 1),
  GET_SEQUENTIAL_4("get-sequential-4t", "point get, sequential keys, 4 threads", 4),
  MULTI_GET_64("multi-get-64", "multi-get of 64 random keys", 1),
  GET_LOOP_64("get-loop-64", "64 random keys, one get each", 1),
  RANGE_50("range-50", "range of 50 entries from a random key", 1),
  RANGE_100("range-100", "range of 100 entries from a random key", 1),
  RANGE_50_UNDER_WRITES("range-50-writes", "range of 50 entries while 4 workers commit", 1, 4),
  RANGE_1000("range-1000", "range of 1,000 entries from a random key", 1),
  FULL_SCAN("full-scan", "every entry, in key order", 1);

  static final int BATCH = 64;

  final String id;
  final String description;
  final int threads;
  /** Workers committing one key at a time (random keys, the same value) while the row reads. */
  final int writers;

  ReadRow(String id, String description, int threads) {
    this(id, description, threads, 0);
  }

  ReadRow(String id, String description, int threads, int writers) {
    this.id = id;
    this.description = description;
    this.threads = threads;
    this.writers = writers;
  }

  /** Entries each operation reads when it reads them all (a full scan reads {@code keys}). */
  long entriesPerOp(int keys) {
    return switch (this) {
      case MULTI_GET_64, GET_LOOP_64 -> BATCH;
      case RANGE_50, RANGE_50_UNDER_WRITES -> 50;
      case RANGE_100 -> 100;
      case RANGE_1000 -> 1000;
      case FULL_SCAN -> keys;
      default -> 1;
    };
  }

  /** The per-thread state a row's operations walk through: a random source and a sequential cursor. */
  static final class Cursor {
    final SplittableRandom random;
    long next;
    final byte[][] batch = new byte[BATCH][];

    Cursor(long seed, long start) {
      this.random = new SplittableRandom(seed);
      this.next = start;
    }
  }

  /** One operation on {@code reader} over {@code keys} entries; returns what it read (never 0 for a live peer). */
  int read(ReadPeer.Reader reader, Cursor c, int keys) throws Exception {
    return switch (this) {
      case GET_RANDOM, GET_RANDOM_4 -> reader.get(ReadKeys.key(c.random.nextInt(keys)));
      case GET_SEQUENTIAL, GET_SEQUENTIAL_4 -> reader.get(ReadKeys.key(c.next++ % keys));
      case MULTI_GET_64 -> {
        fill(c, keys);
        yield reader.multiGet(c.batch);
      }
      case GET_LOOP_64 -> {
        fill(c, keys);
        int n = 0;
        for (byte[] k : c.batch) {
          n += reader.get(k);
        }
        yield n;
      }
      case RANGE_50, RANGE_50_UNDER_WRITES -> range(reader, c, keys, 50);
      case RANGE_100 -> range(reader, c, keys, 100);
      case RANGE_1000 -> range(reader, c, keys, 1000);
      case FULL_SCAN -> reader.range(ReadKeys.key(0), ReadKeys.key(keys));
    };
  }

  private static void fill(Cursor c, int keys) {
    for (int i = 0; i < BATCH; i++) {
      c.batch[i] = ReadKeys.key(c.random.nextInt(keys));
    }
  }

  private static int range(ReadPeer.Reader reader, Cursor c, int keys, int length) throws Exception {
    long from = c.random.nextInt(Math.max(1, keys - length));
    return reader.range(ReadKeys.key(from), ReadKeys.key(from + length));
  }

  static ReadRow byId(String id) {
    for (ReadRow r : values()) {
      if (r.id.equals(id)) {
        return r;
      }
    }
    throw Checks.usage("--rows: unknown row '" + id + "'; known: " + String.join(", ", ids()));
  }

  static List<String> ids() {
    return java.util.Arrays.stream(values()).map(r -> r.id).toList();
  }
}
