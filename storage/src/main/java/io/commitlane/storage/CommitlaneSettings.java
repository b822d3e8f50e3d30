package io.commitlane.storage;

import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The process-wide values a database reads when it is opened (an open database keeps what it
 * opened with). Immutable and always valid: every way of making one validates all fields first.
 *
 * <ul>
 *   <li>{@code occLockBuckets}: lock buckets in each database's version table, 16..16,777,216,
 *       default 65,536: the commit lock stripes and validation's first check. Conflicts are
 *       decided per key whatever the count; fewer buckets mean more lock waits and per-key
 *       look-ups. Buckets are allocated lazily in chunks, so an idle database costs almost nothing.
 *   <li>{@code occValidation}: {@code parallel} (default) or {@code serial}, see {@link
 *       OccValidation}.
 *   <li>{@code commitThreads}: commit executors per database in the actor pipeline, 1..64,
 *       default min(4, available processors).
 *   <li>{@code occBlindWrites}: {@code conflict} (default, RocksDB's rule: a write conflicts with a
 *       later commit's write of the same key) or {@code ordered} (only reads are validated), see
 *       {@link BlindWrites}.
 *   <li>{@code rocksDbWal}: how RocksDB's own WAL is written when it is on (manual flush, group
 *       syncer, unordered/pipelined writes, two write queues), see {@link RocksDbWal}; default
 *       RocksDB's defaults. Not a {@link #with(Map)} field: set it with {@link #withRocksDbWal}.
 *   <li>{@code rocksDbTuning}: compression, memtables, the process-wide block cache and
 *       write-buffer manager, open files, background jobs, see {@link RocksDbTuning}; default
 *       {@link RocksDbTuning#defaults()}. Not a {@link #with(Map)} field: set it with {@link
 *       #withRocksDbTuning}.
 * </ul>
 */
public record CommitlaneSettings(int occLockBuckets, OccValidation occValidation, int commitThreads, BlindWrites occBlindWrites,
    RocksDbWal rocksDbWal, RocksDbTuning rocksDbTuning) {
  public static final int MIN_LOCK_BUCKETS = 16;
  public static final int MAX_LOCK_BUCKETS = 16_777_216;
  public static final int DEFAULT_LOCK_BUCKETS = 65_536;
  public static final int MIN_COMMIT_THREADS = 1;
  public static final int MAX_COMMIT_THREADS = 64;

  public static final String OCC_LOCK_BUCKETS = "occLockBuckets";
  public static final String OCC_VALIDATION = "occValidation";
  public static final String COMMIT_THREADS = "commitThreads";
  public static final String OCC_BLIND_WRITES = "occBlindWrites";

  private static final List<String> FIELDS = List.of(OCC_LOCK_BUCKETS, OCC_VALIDATION, COMMIT_THREADS, OCC_BLIND_WRITES);

  /** The three-field form; blind writes conflict (RocksDB's rule). */
  public CommitlaneSettings(int occLockBuckets, OccValidation occValidation, int commitThreads) {
    this(occLockBuckets, occValidation, commitThreads, BlindWrites.CONFLICT);
  }

  /** The four-field form; RocksDB's WAL as RocksDB's defaults have it. */
  public CommitlaneSettings(int occLockBuckets, OccValidation occValidation, int commitThreads, BlindWrites occBlindWrites) {
    this(occLockBuckets, occValidation, commitThreads, occBlindWrites, RocksDbWal.defaults());
  }

  /** The five-field form; RocksDB tuned as {@link RocksDbTuning#defaults()}. */
  public CommitlaneSettings(int occLockBuckets, OccValidation occValidation, int commitThreads, BlindWrites occBlindWrites,
      RocksDbWal rocksDbWal) {
    this(occLockBuckets, occValidation, commitThreads, occBlindWrites, rocksDbWal, RocksDbTuning.defaults());
  }

  public CommitlaneSettings {
    List<SettingError> errors = new ArrayList<>();
    checkRange(errors, OCC_LOCK_BUCKETS, occLockBuckets, MIN_LOCK_BUCKETS, MAX_LOCK_BUCKETS);
    if (occValidation == null) {
      errors.add(new SettingError(OCC_VALIDATION, null, "must be \"parallel\" or \"serial\""));
    }
    checkRange(errors, COMMIT_THREADS, commitThreads, MIN_COMMIT_THREADS, MAX_COMMIT_THREADS);
    if (occBlindWrites == null) {
      errors.add(new SettingError(OCC_BLIND_WRITES, null, "must be \"conflict\" or \"ordered\""));
    }
    if (rocksDbWal == null) {
      errors.add(new SettingError("rocksDbWal", null, "must be RocksDB WAL options (RocksDbWal.defaults())"));
    }
    if (rocksDbTuning == null) {
      errors.add(new SettingError("rocksDbTuning", null, "must be RocksDB tuning options (RocksDbTuning.defaults())"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  public static CommitlaneSettings defaults() {
    return new CommitlaneSettings(DEFAULT_LOCK_BUCKETS, OccValidation.PARALLEL, defaultCommitThreads());
  }

  public static int defaultCommitThreads() {
    return Math.min(4, Runtime.getRuntime().availableProcessors());
  }

  public CommitlaneSettings withOccLockBuckets(int buckets) {
    return new CommitlaneSettings(buckets, occValidation, commitThreads, occBlindWrites, rocksDbWal, rocksDbTuning);
  }

  public CommitlaneSettings withOccValidation(OccValidation validation) {
    return new CommitlaneSettings(occLockBuckets, validation, commitThreads, occBlindWrites, rocksDbWal, rocksDbTuning);
  }

  public CommitlaneSettings withCommitThreads(int threads) {
    return new CommitlaneSettings(occLockBuckets, occValidation, threads, occBlindWrites, rocksDbWal, rocksDbTuning);
  }

  public CommitlaneSettings withRocksDbWal(RocksDbWal wal) {
    return new CommitlaneSettings(occLockBuckets, occValidation, commitThreads, occBlindWrites, wal, rocksDbTuning);
  }

  public CommitlaneSettings withOccBlindWrites(BlindWrites blindWrites) {
    return new CommitlaneSettings(occLockBuckets, occValidation, commitThreads, blindWrites, rocksDbWal, rocksDbTuning);
  }

  public CommitlaneSettings withRocksDbTuning(RocksDbTuning tuning) {
    return new CommitlaneSettings(occLockBuckets, occValidation, commitThreads, occBlindWrites, rocksDbWal, tuning);
  }

  /**
   * These settings with the given fields changed. Values may be numbers or numeric strings for
   * the integer fields and {@code "parallel"}/{@code "serial"} (or an {@link OccValidation}) for
   * {@code occValidation}. Every field is checked before anything is returned: an unknown field,
   * a wrong type or a value out of range is reported together with all other errors.
   */
  public CommitlaneSettings with(Map<String, ?> changes) {
    Objects.requireNonNull(changes, "changes");
    List<SettingError> errors = new ArrayList<>();
    for (String key : changes.keySet()) {
      if (!FIELDS.contains(key)) {
        errors.add(new SettingError(key, changes.get(key), "unknown setting; known settings are " + FIELDS));
      }
    }
    int buckets = changes.containsKey(OCC_LOCK_BUCKETS)
        ? intField(errors, OCC_LOCK_BUCKETS, changes.get(OCC_LOCK_BUCKETS), MIN_LOCK_BUCKETS, MAX_LOCK_BUCKETS, occLockBuckets)
        : occLockBuckets;
    OccValidation validation = changes.containsKey(OCC_VALIDATION)
        ? validationField(errors, changes.get(OCC_VALIDATION))
        : occValidation;
    int threads = changes.containsKey(COMMIT_THREADS)
        ? intField(errors, COMMIT_THREADS, changes.get(COMMIT_THREADS), MIN_COMMIT_THREADS, MAX_COMMIT_THREADS, commitThreads)
        : commitThreads;
    BlindWrites blind = changes.containsKey(OCC_BLIND_WRITES)
        ? enumField(errors, OCC_BLIND_WRITES, changes.get(OCC_BLIND_WRITES), BlindWrites.values(), occBlindWrites)
        : occBlindWrites;
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    return new CommitlaneSettings(buckets, validation, threads, blind, rocksDbWal, rocksDbTuning);
  }

  /** The fields as a map, in the form {@link #with(Map)} accepts. */
  public Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(OCC_LOCK_BUCKETS, occLockBuckets);
    m.put(OCC_VALIDATION, occValidation.settingName());
    m.put(COMMIT_THREADS, commitThreads);
    m.put(OCC_BLIND_WRITES, occBlindWrites.settingName());
    return m;
  }

  private static void checkRange(List<SettingError> errors, String field, long value, long min, long max) {
    if (value < min || value > max) {
      errors.add(new SettingError(field, value, rangeText(min, max)));
    }
  }

  private static String rangeText(long min, long max) {
    return "must be an integer in " + min + ".." + max;
  }

  private static int intField(List<SettingError> errors, String field, Object raw, int min, int max, int fallback) {
    long value;
    if (raw instanceof Integer || raw instanceof Long || raw instanceof Short || raw instanceof Byte) {
      value = ((Number) raw).longValue();
    } else if (raw instanceof String s && s.trim().matches("-?\\d{1,18}")) {
      value = Long.parseLong(s.trim());
    } else {
      errors.add(new SettingError(field, raw, rangeText(min, max)));
      return fallback;
    }
    if (value < min || value > max) {
      errors.add(new SettingError(field, raw, rangeText(min, max)));
      return fallback;
    }
    return (int) value;
  }

  private static BlindWrites enumField(List<SettingError> errors, String field, Object raw, BlindWrites[] values, BlindWrites fallback) {
    if (raw instanceof BlindWrites b) {
      return b;
    }
    for (BlindWrites v : values) {
      if (raw instanceof String s && v.settingName().equals(s.trim())) {
        return v;
      }
    }
    errors.add(new SettingError(field, raw, "must be \"conflict\" or \"ordered\""));
    return fallback;
  }

  private static OccValidation validationField(List<SettingError> errors, Object raw) {
    if (raw instanceof OccValidation v) {
      return v;
    }
    if (raw instanceof String s) {
      for (OccValidation v : OccValidation.values()) {
        if (v.settingName().equals(s.trim())) {
          return v;
        }
      }
    }
    errors.add(new SettingError(OCC_VALIDATION, raw, "must be \"parallel\" or \"serial\""));
    return OccValidation.PARALLEL;
  }
}
