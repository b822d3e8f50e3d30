package io.commitlane.storage;

import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.commitlane.storage.internal.settings.StorageKeys;

/**
 * The storage settings a database reads when it is opened (an open database keeps what it opened
 * with). Immutable and always valid: the constructor checks every field against its definition
 * ({@code StorageKeys}: key, range, doc line) and reports all bad ones together. Their defaults are
 * the {@code commitlane { }} block of the actors module's {@code reference.conf}; {@link #defaults()}
 * is the same values for storage used without Pekko.
 *
 * <ul>
 *   <li>{@code occLockBuckets}: lock buckets in each database's version table: the commit lock
 *       stripes and validation's first check. Conflicts are decided per key whatever the count;
 *       fewer buckets mean more lock waits and per-key look-ups. Buckets are allocated lazily in
 *       chunks, so an idle database costs almost nothing.
 *   <li>{@code occValidation}: see {@link OccValidation}.
 *   <li>{@code occBlindWrites}: {@code conflict} (RocksDB's rule: a write conflicts with a later
 *       commit's write of the same key) or {@code ordered} (only reads are validated), see {@link
 *       BlindWrites}.
 *   <li>{@code rocksDbWal}: how RocksDB's own WAL is written when it is on (manual flush, group
 *       syncer, unordered/pipelined writes, two write queues), see {@link RocksDbWal}.
 *   <li>{@code rocksDbTuning}: compression, memtables, the process-wide block cache and
 *       write-buffer manager, open files, background jobs, see {@link RocksDbTuning}.
 * </ul>
 */
public record CommitlaneSettings(int occLockBuckets, OccValidation occValidation, BlindWrites occBlindWrites,
    RocksDbWal rocksDbWal, RocksDbTuning rocksDbTuning) {

  public CommitlaneSettings {
    List<SettingError> errors = new ArrayList<>();
    StorageKeys.OCC_LOCK_BUCKETS.check(errors, StorageKeys.OCC_LOCK_BUCKETS.javaName(), occLockBuckets);
    StorageKeys.OCC_VALIDATION.checkPresent(errors, StorageKeys.OCC_VALIDATION.javaName(), occValidation);
    StorageKeys.OCC_BLIND_WRITES.checkPresent(errors, StorageKeys.OCC_BLIND_WRITES.javaName(), occBlindWrites);
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

  /** The values of {@code reference.conf}, for storage used without Pekko (a test keeps them equal). */
  public static CommitlaneSettings defaults() {
    return new CommitlaneSettings(65_536, OccValidation.PARALLEL, BlindWrites.CONFLICT, RocksDbWal.defaults(), RocksDbTuning.defaults());
  }

  public CommitlaneSettings withOccLockBuckets(int buckets) {
    return new CommitlaneSettings(buckets, occValidation, occBlindWrites, rocksDbWal, rocksDbTuning);
  }

  public CommitlaneSettings withOccValidation(OccValidation validation) {
    return new CommitlaneSettings(occLockBuckets, validation, occBlindWrites, rocksDbWal, rocksDbTuning);
  }

  public CommitlaneSettings withOccBlindWrites(BlindWrites blindWrites) {
    return new CommitlaneSettings(occLockBuckets, occValidation, blindWrites, rocksDbWal, rocksDbTuning);
  }

  public CommitlaneSettings withRocksDbWal(RocksDbWal wal) {
    return new CommitlaneSettings(occLockBuckets, occValidation, occBlindWrites, wal, rocksDbTuning);
  }

  public CommitlaneSettings withRocksDbTuning(RocksDbTuning tuning) {
    return new CommitlaneSettings(occLockBuckets, occValidation, occBlindWrites, rocksDbWal, tuning);
  }

  /** The fields an open database is compared by, named by their Java names. */
  public Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(StorageKeys.OCC_LOCK_BUCKETS.javaName(), occLockBuckets);
    m.put(StorageKeys.OCC_VALIDATION.javaName(), occValidation.settingName());
    m.put(StorageKeys.OCC_BLIND_WRITES.javaName(), occBlindWrites.settingName());
    return m;
  }
}
