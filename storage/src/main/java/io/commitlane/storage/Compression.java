package io.commitlane.storage;

import java.util.Locale;
import org.rocksdb.CompressionType;

/** How a store's data files (SST blocks) are compressed. Memtables and the WAL are never compressed. */
public enum Compression {
  NONE(CompressionType.NO_COMPRESSION),
  SNAPPY(CompressionType.SNAPPY_COMPRESSION),
  LZ4(CompressionType.LZ4_COMPRESSION),
  ZSTD(CompressionType.ZSTD_COMPRESSION);

  private final CompressionType rocks;

  Compression(CompressionType rocks) {
    this.rocks = rocks;
  }

  /** The name settings use: {@code none}, {@code snappy}, {@code lz4}, {@code zstd}. */
  public String settingName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The value of {@code name} ({@link #settingName()}, any case), or null. */
  public static Compression parse(String name) {
    for (Compression c : values()) {
      if (c.settingName().equalsIgnoreCase(name.trim())) {
        return c;
      }
    }
    return null;
  }

  CompressionType rocks() {
    return rocks;
  }
}
