package io.commitlane.bench.ingest;

import io.commitlane.storage.KeyValue;
import java.util.Random;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The records every ingest row writes: record {@code i} has key {@code "rec000000042"} (12 bytes,
 * ordered like the index) and one of 1,024 distinct random values, shared by every row, so
 * generating records costs next to nothing and the rows measure ingestion, not generation.
 */
final class IngestRecords {
  private static final int VALUES = 1024;
  private final byte[][] values;

  IngestRecords(int valueSize) {
    Random random = new Random(42);
    values = new byte[VALUES][valueSize];
    for (byte[] v : values) {
      random.nextBytes(v);
    }
  }

  static byte[] key(long i) {
    byte[] k = {'r', 'e', 'c', '0', '0', '0', '0', '0', '0', '0', '0', '0'};
    for (int p = k.length - 1; p >= 3 && i > 0; p--, i /= 10) {
      k[p] = (byte) ('0' + i % 10);
    }
    return k;
  }

  byte[] value(long i) {
    return values[(int) (i & (VALUES - 1))];
  }

  /** Records {@code from} to {@code to}, both included. */
  Source<KeyValue, NotUsed> range(int from, int to) {
    return Source.range(from, to).map(i -> new KeyValue(key(i), value(i)));
  }
}
