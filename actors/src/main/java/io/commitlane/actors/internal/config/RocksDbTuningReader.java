package io.commitlane.actors.internal.config;

import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.commitlane.storage.Compression;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.RocksDbTuning;
import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.storage.internal.settings.StorageKeys;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads {@code commitlane.rocksdb { ... }} into {@link RocksDbTuning} through the definitions in
 * {@code StorageKeys}: values of the wrong type and out of range are reported under their config
 * keys with the rest of the section's errors; null if any is.
 */
final class RocksDbTuningReader {
  private RocksDbTuningReader() {}

  static RocksDbTuning read(ConfigSection c) {
    Compression compression = PipelineSettingsReader.choice(c, StorageKeys.COMPRESSION, Compression.values());
    Map<String, Compression> perStore = storeCompression(c);
    Long writeBuffer = (Long) c.read(StorageKeys.WRITE_BUFFER_SIZE);
    Long buffers = (Long) c.read(StorageKeys.MAX_WRITE_BUFFERS);
    Long cache = (Long) c.read(StorageKeys.BLOCK_CACHE_SIZE);
    Long manager = (Long) c.read(StorageKeys.WRITE_BUFFER_MANAGER_SIZE);
    Long files = (Long) c.read(StorageKeys.MAX_OPEN_FILES);
    Long jobs = (Long) c.read(StorageKeys.MAX_BACKGROUND_JOBS);
    Long bloom = (Long) c.read(StorageKeys.BLOOM_FILTER_BITS_PER_KEY);
    Long slowdown = (Long) c.read(StorageKeys.LEVEL0_SLOWDOWN_WRITES_TRIGGER);
    Long stop = (Long) c.read(StorageKeys.LEVEL0_STOP_WRITES_TRIGGER);
    Long soft = (Long) c.read(StorageKeys.SOFT_PENDING_COMPACTION_BYTES_LIMIT);
    Long hard = (Long) c.read(StorageKeys.HARD_PENDING_COMPACTION_BYTES_LIMIT);
    if (compression == null || perStore == null || writeBuffer == null || buffers == null || cache == null || manager == null
        || files == null || jobs == null || bloom == null || slowdown == null || stop == null || soft == null || hard == null) {
      return null;
    }
    try {
      return new RocksDbTuning(compression, perStore, writeBuffer, buffers.intValue(), cache, manager, files.intValue(),
          jobs.intValue(), bloom.intValue(), slowdown.intValue(), stop.intValue(), soft, hard);
    } catch (InvalidSettingsException e) {
      for (SettingError each : e.errors()) {
        String key = configKey(each.field());
        c.error(key, c.raw(key) == null ? each.value() : c.raw(key), each.allowed());
      }
      return null;
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
          c.error(section + "." + e.getKey(), raw, StorageKeys.COMPRESSION.allowed() + " (quote a store name that has dots)");
        } else {
          m.put(e.getKey(), value);
        }
      }
    } catch (com.typesafe.config.ConfigException e) {
      c.error(section, c.raw(section), "must be a section of store name = compression");
    }
    return m;
  }

  /** {@code rocksDbTuning.writeBufferSize} is {@code rocksdb.write-buffer-size}; store names stay as written. */
  private static String configKey(String field) {
    String prefix = "rocksDbTuning.storeCompression.";
    if (field.startsWith(prefix)) {
      return SettingKeys.STORE_COMPRESSION + "." + field.substring(prefix.length());
    }
    Setting setting = StorageKeys.byJavaName(field);
    return setting == null ? "rocksdb" : setting.key();
  }
}
