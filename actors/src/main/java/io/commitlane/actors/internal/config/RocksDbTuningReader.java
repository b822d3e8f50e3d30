package io.commitlane.actors.internal.config;

import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.commitlane.storage.Compression;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.RocksDbTuning;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads {@code commitlane.rocksdb { ... }} into {@link RocksDbTuning}: values of the wrong type
 * and out of range are reported under their config keys with the rest of the section's errors.
 */
final class RocksDbTuningReader {
  private static final String COMPRESSIONS = "must be one of \"none\", \"snappy\", \"lz4\", \"zstd\"";

  private RocksDbTuningReader() {}

  static RocksDbTuning read(ConfigSection c) {
    RocksDbTuning d = RocksDbTuning.defaults();
    Compression compression = c.oneOf("rocksdb.compression", Compression.values(), d.compression());
    Map<String, Compression> perStore = storeCompression(c);
    long writeBuffer = size(c, "rocksdb.write-buffer-size", d.writeBufferSize());
    int buffers = c.integer("rocksdb.max-write-buffers", d.maxWriteBuffers());
    long cache = size(c, "rocksdb.block-cache-size", d.blockCacheSize());
    long manager = size(c, "rocksdb.write-buffer-manager-size", d.writeBufferManagerSize());
    int files = c.integer("rocksdb.max-open-files", d.maxOpenFiles());
    int jobs = c.integer("rocksdb.max-background-jobs", d.maxBackgroundJobs());
    int bloom = c.integer("rocksdb.bloom-filter-bits-per-key", d.bloomFilterBitsPerKey());
    int slowdown = c.integer("rocksdb.level0-slowdown-writes-trigger", d.level0SlowdownWritesTrigger());
    int stop = c.integer("rocksdb.level0-stop-writes-trigger", d.level0StopWritesTrigger());
    long soft = size(c, "rocksdb.soft-pending-compaction-bytes-limit", d.softPendingCompactionBytesLimit());
    long hard = size(c, "rocksdb.hard-pending-compaction-bytes-limit", d.hardPendingCompactionBytesLimit());
    try {
      return new RocksDbTuning(compression, perStore, writeBuffer, buffers, cache, manager, files, jobs, bloom, slowdown, stop,
          soft, hard);
    } catch (InvalidSettingsException e) {
      for (SettingError each : e.errors()) {
        String key = configKey(each.field());
        c.error(key, c.raw(key) == null ? each.value() : c.raw(key), each.allowed());
      }
      return d;
    }
  }

  /** {@code rocksdb.store-compression { orders = zstd, "name.with.dots" = none }}. */
  private static Map<String, Compression> storeCompression(ConfigSection c) {
    Map<String, Compression> m = new LinkedHashMap<>();
    if (!c.has(SettingKeys.STORE_COMPRESSION)) {
      return m;
    }
    String section = SettingKeys.STORE_COMPRESSION;
    try {
      for (Map.Entry<String, ConfigValue> e : c.config().getObject(section).entrySet()) {
        Object raw = e.getValue().unwrapped();
        Compression value = e.getValue().valueType() == ConfigValueType.STRING ? Compression.parse((String) raw) : null;
        if (value == null) {
          c.error(section + "." + e.getKey(), raw, COMPRESSIONS + " (quote a store name that has dots)");
        } else {
          m.put(e.getKey(), value);
        }
      }
    } catch (com.typesafe.config.ConfigException e) {
      c.error(section, c.raw(section), "must be a section of store name = compression");
    }
    return m;
  }

  private static long size(ConfigSection c, String key, long fallback) {
    return c.has(key) ? c.bytes(key, fallback) : fallback;
  }

  /** {@code rocksDbTuning.writeBufferSize} is {@code rocksdb.write-buffer-size}; store names stay as written. */
  private static String configKey(String field) {
    String f = field.substring("rocksDbTuning.".length());
    if (f.startsWith("storeCompression.")) {
      return SettingKeys.STORE_COMPRESSION + "." + f.substring("storeCompression.".length());
    }
    return "rocksdb." + f.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }
}
