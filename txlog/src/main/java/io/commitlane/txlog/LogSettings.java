package io.commitlane.txlog;

import io.commitlane.txlog.internal.fs.JdkFileSystem;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import io.commitlane.txlog.internal.settings.LogKey;
import io.commitlane.txlog.internal.settings.LogKeys;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings of one {@link TransactionLog}. Immutable and always valid: start from {@link
 * #defaults()} and change what differs with the {@code with*} methods, for example {@code
 * LogSettings.defaults().withDurability(Durability.FSYNC).withAppendMode(AppendMode.LEADERLESS)}.
 * Each setting's range (and its key under {@code commitlane.txlog}) is defined once, in {@code
 * LogKeys}; the constructor checks every field against it, so a {@code with*} method refuses an
 * out-of-range value at once with an {@link InvalidLogSettingException} naming the field and its
 * range. When the constructor is given several bad fields it names the first and attaches the others
 * as suppressed exceptions. The defaults are the values of the actors module's {@code
 * reference.conf}, which a test keeps equal.
 *
 * @param durability NONE, PROCESS (default) or FSYNC; see {@link Durability}
 * @param maxSegmentBytes rotate before a record would make the active segment larger than this
 * @param maxSegmentAge rotate at the first append after the active segment got this old
 * @param retention {@link TransactionLog#purgeExpired()} deletes flushed segments older than this
 * @param groupCommitMaxBytes FSYNC: force early once this many bytes wait
 * @param groupCommitMaxRecords FSYNC: force early once this many records wait
 * @param groupCommitMaxWait FSYNC: how long the force thread may wait after the first durability
 *     request for more records to share one fsync; 0 forces at once (records written during a force
 *     share the next one, so a lone caller never waits for company)
 * @param fileSystem where the files live; default {@link JdkFileSystem#INSTANCE}
 * @param clock the clock for segment age, abort markers and retention; default UTC system clock
 * @param name the log's name in thread names and messages, or {@code null} (default) to use the
 *     directory's name
 * @param appendMode SERIALIZED (default), LEADERLESS or ACTOR; see {@link AppendMode}
 * @param appendBufferBytes LEADERLESS: bytes of each of the two ping-pong buffers (capped at
 *     maxSegmentBytes); a frame larger than a buffer is written straight to the file while appends
 *     wait. ACTOR: the most the writer takes into one batch (one write)
 * @param completionRingSlots LEADERLESS: slots of the completion watermark's ring (24 bytes each):
 *     an append waits while it would be this many records past the oldest record not yet finished
 *     or aborted, and fails with {@link UnfinishedLimitException} after {@code completionRingWait}.
 *     A power of two
 * @param completionRingWait LEADERLESS: how long an append waits for a slot of the completion ring
 *     (a finish or abort of the oldest unfinished record frees it) before it fails
 * @param recoveryMode what open does with damage other than a torn tail; see {@link RecoveryMode}.
 *     Default POINT_IN_TIME
 */
public record LogSettings(Durability durability, long maxSegmentBytes, Duration maxSegmentAge, Duration retention,
    long groupCommitMaxBytes, int groupCommitMaxRecords, Duration groupCommitMaxWait, LogFileSystem fileSystem,
    Clock clock, String name, AppendMode appendMode, long appendBufferBytes, int completionRingSlots,
    Duration completionRingWait, RecoveryMode recoveryMode) {
  /** Largest {@code maxSegmentBytes} (offsets and mappings stay in int range). */
  public static final long MAX_SEGMENT_BYTES = LogKeys.MAX_SEGMENT_SIZE.max();

  /**
   * Checks every field.
   *
   * @throws InvalidLogSettingException naming the first field out of range, with the others suppressed in it
   */
  public LogSettings {
    List<InvalidLogSettingException> errors = new ArrayList<>();
    present(errors, LogKeys.DURABILITY, durability);
    check(errors, LogKeys.MAX_SEGMENT_SIZE, maxSegmentBytes);
    check(errors, LogKeys.MAX_SEGMENT_AGE, maxSegmentAge);
    check(errors, LogKeys.RETENTION, retention);
    check(errors, LogKeys.GROUP_COMMIT_MAX_BYTES, groupCommitMaxBytes);
    check(errors, LogKeys.GROUP_COMMIT_MAX_RECORDS, groupCommitMaxRecords);
    check(errors, LogKeys.GROUP_COMMIT_MAX_WAIT, groupCommitMaxWait);
    if (fileSystem == null) {
      errors.add(new InvalidLogSettingException("fileSystem", null, "a LogFileSystem, not null"));
    }
    if (clock == null) {
      errors.add(new InvalidLogSettingException("clock", null, "a java.time.Clock, not null"));
    }
    present(errors, LogKeys.APPEND, appendMode);
    check(errors, LogKeys.APPEND_BUFFER_SIZE, appendBufferBytes);
    if (!LogKeys.COMPLETION_RING_SLOTS.allows(completionRingSlots) || Integer.bitCount(completionRingSlots) != 1) {
      errors.add(new InvalidLogSettingException(LogKeys.COMPLETION_RING_SLOTS.javaName(), completionRingSlots,
          LogKeys.COMPLETION_RING_SLOTS.allowed()));
    }
    present(errors, LogKeys.RECOVERY, recoveryMode);
    check(errors, LogKeys.COMPLETION_RING_WAIT, completionRingWait);
    if (name != null && (name.isBlank() || name.length() > 200)) {
      errors.add(new InvalidLogSettingException("name", name, "null or 1..200 non-blank characters"));
    }
    if (!errors.isEmpty()) {
      InvalidLogSettingException first = errors.get(0);
      errors.subList(1, errors.size()).forEach(first::addSuppressed);
      throw first;
    }
  }

  /**
   * The defaults, the values of {@code reference.conf}'s {@code commitlane.txlog { }}: PROCESS
   * durability, 16 MiB / 1 hour segments, 3 days retention, SERIALIZED appends, POINT_IN_TIME
   * recovery.
   */
  public static LogSettings defaults() {
    return new LogSettings(Durability.PROCESS, 16L << 20, Duration.ofHours(1), Duration.ofDays(3), 1L << 20, 4096,
        Duration.ZERO, JdkFileSystem.INSTANCE, Clock.systemUTC(), null, AppendMode.SERIALIZED, 1L << 20, 16384,
        Duration.ofSeconds(30), RecoveryMode.POINT_IN_TIME);
  }

  /** NONE, PROCESS (default) or FSYNC; see {@link Durability}. */
  public LogSettings withDurability(Durability durability) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /** Rotate before a record would make the active segment larger than this. */
  public LogSettings withMaxSegmentBytes(long bytes) {
    return new LogSettings(durability, bytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /** Rotate at the first append after the active segment got this old. */
  public LogSettings withMaxSegmentAge(Duration age) {
    return new LogSettings(durability, maxSegmentBytes, age, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /** {@link TransactionLog#purgeExpired()} deletes flushed segments older than this. */
  public LogSettings withRetention(Duration retention) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /** FSYNC: force early once this many bytes wait. */
  public LogSettings withGroupCommitMaxBytes(long bytes) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, bytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /** FSYNC: force early once this many records wait. */
  public LogSettings withGroupCommitMaxRecords(int records) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        records, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /**
   * FSYNC: how long the force thread may wait after the first durability request for more
   * records to share one fsync; 0 forces at once (records written during a force share the next
   * one, so a lone caller never waits for company).
   */
  public LogSettings withGroupCommitMaxWait(Duration wait) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, wait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /** Where the files live; default {@link JdkFileSystem#INSTANCE}. */
  public LogSettings withFileSystem(LogFileSystem fileSystem) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /** The clock for segment age, abort markers and retention; default UTC system clock. */
  public LogSettings withClock(Clock clock) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /** The log's name in thread names and messages; {@code null} (default) uses the directory's name. */
  public LogSettings withName(String name) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /** SERIALIZED (default), LEADERLESS or ACTOR; see {@link AppendMode}. */
  public LogSettings withAppendMode(AppendMode mode) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, mode, appendBufferBytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /**
   * LEADERLESS: bytes of each of the two ping-pong buffers (capped at maxSegmentBytes); a frame
   * larger than a buffer is written straight to the file while appends wait. ACTOR: the most the
   * writer takes into one batch (one write).
   */
  public LogSettings withAppendBufferBytes(long bytes) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, bytes,
        completionRingSlots, completionRingWait, recoveryMode);
  }

  /**
   * LEADERLESS: slots of the completion watermark's ring (24 bytes each): an append waits while it
   * would be this many records past the oldest record not yet finished or aborted, and fails with
   * {@link UnfinishedLimitException} after {@link #completionRingWait}. A power of two.
   */
  public LogSettings withCompletionRingSlots(int records) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        records, completionRingWait, recoveryMode);
  }

  /**
   * LEADERLESS: how long an append waits for a slot of the completion ring (a finish or abort of
   * the oldest unfinished record frees it) before it fails.
   */
  public LogSettings withCompletionRingWait(Duration wait) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, wait, recoveryMode);
  }

  /** What open does with damage other than a torn tail; see {@link RecoveryMode}. Default POINT_IN_TIME. */
  public LogSettings withRecoveryMode(RecoveryMode mode) {
    return new LogSettings(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode, appendBufferBytes,
        completionRingSlots, completionRingWait, mode);
  }

  @Override
  public String toString() {
    return "LogSettings{durability=" + durability + ", maxSegmentBytes=" + maxSegmentBytes
        + ", maxSegmentAge=" + maxSegmentAge + ", retention=" + retention
        + ", groupCommitMaxBytes=" + groupCommitMaxBytes + ", groupCommitMaxRecords="
        + groupCommitMaxRecords + ", groupCommitMaxWait=" + groupCommitMaxWait + ", appendMode="
        + appendMode + ", appendBufferBytes=" + appendBufferBytes + ", completionRingSlots="
        + completionRingSlots + ", completionRingWait=" + completionRingWait + ", recoveryMode="
        + recoveryMode + "}";
  }

  private static void check(List<InvalidLogSettingException> errors, LogKey key, long value) {
    if (!key.allows(value)) {
      errors.add(new InvalidLogSettingException(key.javaName(), value, key.allowed()));
    }
  }

  private static void check(List<InvalidLogSettingException> errors, LogKey key, Duration value) {
    if (!key.allows(value)) {
      errors.add(new InvalidLogSettingException(key.javaName(), value, key.allowed()));
    }
  }

  private static void present(List<InvalidLogSettingException> errors, LogKey key, Object value) {
    if (value == null) {
      errors.add(new InvalidLogSettingException(key.javaName(), null, key.allowed()));
    }
  }
}
