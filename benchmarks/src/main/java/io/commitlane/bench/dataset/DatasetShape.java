package io.commitlane.bench.dataset;

import io.commitlane.bench.read.ReadKeys;
import io.commitlane.bench.report.Units;
import java.util.Locale;
import java.util.Properties;

/**
 * The data a bulk-built database holds, fully determined by three numbers: keys {@code 0..keys-1}
 * as 8-byte big-endian integers ({@link ReadKeys}), each with a value of a size in {@code
 * [minValue, maxValue]} that depends on the key alone. The same shape always means the same sizes
 * (and, through {@link BulkDataset}, the same bytes), so a database built once can be reused.
 */
public record DatasetShape(long keys, int minValue, int maxValue) {
  /** Bumped whenever the bytes a shape stands for change, so older builds are not reused. */
  static final int FORMAT = 1;

  public DatasetShape {
    if (keys < 1 || minValue < 1 || maxValue < minValue) {
      throw new IllegalArgumentException("a dataset needs keys >= 1 and 1 <= minValue <= maxValue: " + keys + ", " + minValue + ".." + maxValue);
    }
  }

  /** Every value {@code size} bytes. */
  public static DatasetShape fixed(long keys, int size) {
    return new DatasetShape(keys, size, size);
  }

  /** The fewest keys whose values of sizes in {@code [minValue, maxValue]} add up to at least {@code bytes}. */
  public static DatasetShape ofValueBytes(long bytes, int minValue, int maxValue) {
    DatasetShape probe = new DatasetShape(1, minValue, maxValue);
    long keys = 0;
    for (long total = 0; total < bytes; keys++) {
      total += probe.valueSize(keys);
    }
    return new DatasetShape(Math.max(1, keys), minValue, maxValue);
  }

  int valueSize(long key) {
    return minValue == maxValue ? minValue : minValue + (int) Long.remainderUnsigned(mix(key), maxValue - minValue + 1);
  }

  /** The sum of every value's size. */
  public long valueBytes() {
    if (minValue == maxValue) {
      return keys * minValue;
    }
    long total = 0;
    for (long k = 0; k < keys; k++) {
      total += valueSize(k);
    }
    return total;
  }

  /** A directory name: {@code 1M-keys-100B}, {@code 3.5M-keys-1024-8192B}. */
  public String name() {
    return Counts.format(keys) + "-keys-" + (minValue == maxValue ? minValue : minValue + "-" + maxValue) + "B";
  }

  /** "1M keys x 100 B", for tables. */
  public String label() {
    return Counts.format(keys) + " keys x " + (minValue == maxValue ? Units.bytes(minValue) : Units.bytes(minValue) + "-" + Units.bytes(maxValue));
  }

  Properties toProperties() {
    Properties p = new Properties();
    p.setProperty("format", Integer.toString(FORMAT));
    p.setProperty("keys", Long.toString(keys));
    p.setProperty("min-value", Integer.toString(minValue));
    p.setProperty("max-value", Integer.toString(maxValue));
    return p;
  }

  /** The shape a marker describes; null if it is of another format or unreadable. */
  static DatasetShape fromProperties(Properties p) {
    try {
      if (Integer.parseInt(p.getProperty("format", "0")) != FORMAT) {
        return null;
      }
      return new DatasetShape(Long.parseLong(p.getProperty("keys")), Integer.parseInt(p.getProperty("min-value")),
          Integer.parseInt(p.getProperty("max-value")));
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** A 64-bit mix (SplitMix64's finalizer): neighbouring keys get unrelated sizes and value offsets. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%,d keys, values of %s bytes", keys, minValue == maxValue ? minValue : minValue + "-" + maxValue);
  }
}
