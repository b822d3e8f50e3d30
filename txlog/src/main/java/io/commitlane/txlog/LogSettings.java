package io.commitlane.txlog;

import io.commitlane.txlog.internal.settings.LogKey;
import io.commitlane.txlog.internal.settings.LogKeys;
import io.commitlane.txlog.internal.fs.JdkFileSystem;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The immutable, validated settings of one {@link TransactionLog}. Build with {@link #builder()};
 * {@link Builder#build()} checks every field before any is used and names the first bad one (the
 * others are attached as suppressed exceptions).
 */
public final class LogSettings {
  /** Largest {@code maxSegmentBytes} (offsets and mappings stay in int range). */
  public static final long MAX_SEGMENT_BYTES = LogKeys.MAX_SEGMENT_SIZE.max();

  private final Durability durability;
  private final long maxSegmentBytes;
  private final Duration maxSegmentAge;
  private final Duration retention;
  private final long groupCommitMaxBytes;
  private final int groupCommitMaxRecords;
  private final Duration groupCommitMaxWait;
  private final LogFileSystem fileSystem;
  private final Clock clock;
  private final String name;
  private final AppendMode appendMode;
  private final long appendBufferBytes;
  private final int completionRingSlots;
  private final Duration completionRingWait;
  private final RecoveryMode recoveryMode;

  private LogSettings(Builder b) {
    this.durability = b.durability;
    this.maxSegmentBytes = b.maxSegmentBytes;
    this.maxSegmentAge = b.maxSegmentAge;
    this.retention = b.retention;
    this.groupCommitMaxBytes = b.groupCommitMaxBytes;
    this.groupCommitMaxRecords = b.groupCommitMaxRecords;
    this.groupCommitMaxWait = b.groupCommitMaxWait;
    this.fileSystem = b.fileSystem;
    this.clock = b.clock;
    this.name = b.name;
    this.appendMode = b.appendMode;
    this.appendBufferBytes = b.appendBufferBytes;
    this.completionRingSlots = b.completionRingSlots;
    this.completionRingWait = b.completionRingWait;
    this.recoveryMode = b.recoveryMode;
  }

  /** The defaults: PROCESS durability, 16 MiB / 1 hour segments, 3 days retention. */
  public static LogSettings defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these settings, to change a few. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.durability = durability;
    b.maxSegmentBytes = maxSegmentBytes;
    b.maxSegmentAge = maxSegmentAge;
    b.retention = retention;
    b.groupCommitMaxBytes = groupCommitMaxBytes;
    b.groupCommitMaxRecords = groupCommitMaxRecords;
    b.groupCommitMaxWait = groupCommitMaxWait;
    b.fileSystem = fileSystem;
    b.clock = clock;
    b.name = name;
    b.appendMode = appendMode;
    b.appendBufferBytes = appendBufferBytes;
    b.completionRingSlots = completionRingSlots;
    b.completionRingWait = completionRingWait;
    b.recoveryMode = recoveryMode;
    return b;
  }

  public Durability durability() {
    return durability;
  }

  public long maxSegmentBytes() {
    return maxSegmentBytes;
  }

  public Duration maxSegmentAge() {
    return maxSegmentAge;
  }

  public Duration retention() {
    return retention;
  }

  public long groupCommitMaxBytes() {
    return groupCommitMaxBytes;
  }

  public int groupCommitMaxRecords() {
    return groupCommitMaxRecords;
  }

  public Duration groupCommitMaxWait() {
    return groupCommitMaxWait;
  }

  public LogFileSystem fileSystem() {
    return fileSystem;
  }

  public Clock clock() {
    return clock;
  }

  /** The log's name, or {@code null} to use the directory's name. */
  public String name() {
    return name;
  }

  public AppendMode appendMode() {
    return appendMode;
  }

  public long appendBufferBytes() {
    return appendBufferBytes;
  }

  public int completionRingSlots() {
    return completionRingSlots;
  }

  public Duration completionRingWait() {
    return completionRingWait;
  }

  public RecoveryMode recoveryMode() {
    return recoveryMode;
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

  /**
   * Collects settings; nothing is checked until {@link #build()}. Each setting's range (and its
   * key under {@code commitlane.txlog}) is defined once, in {@code LogKeys}; a builder starts from
   * the values of the actors module's {@code reference.conf}, which a test keeps equal.
   */
  public static final class Builder {
    private Durability durability = Durability.PROCESS;
    private long maxSegmentBytes = 16L << 20;
    private Duration maxSegmentAge = Duration.ofHours(1);
    private Duration retention = Duration.ofDays(3);
    private long groupCommitMaxBytes = 1L << 20;
    private int groupCommitMaxRecords = 4096;
    private Duration groupCommitMaxWait = Duration.ZERO;
    private LogFileSystem fileSystem = JdkFileSystem.INSTANCE;
    private Clock clock = Clock.systemUTC();
    private String name;
    private AppendMode appendMode = AppendMode.SERIALIZED;
    private long appendBufferBytes = 1L << 20;
    private int completionRingSlots = 16384;
    private Duration completionRingWait = Duration.ofSeconds(30);
    private RecoveryMode recoveryMode = RecoveryMode.POINT_IN_TIME;

    private Builder() {}

    /** What open does with damage other than a torn tail; see {@link RecoveryMode}. Default POINT_IN_TIME. */
    public Builder recoveryMode(RecoveryMode mode) {
      this.recoveryMode = mode;
      return this;
    }

    /** SERIALIZED (default), LEADERLESS or ACTOR; see {@link AppendMode}. */
    public Builder appendMode(AppendMode mode) {
      this.appendMode = mode;
      return this;
    }

    /**
     * LEADERLESS: bytes of each of the two ping-pong buffers (capped at maxSegmentBytes); a frame
     * larger than a buffer is written straight to the file while appends wait. ACTOR: the most
     * the writer takes into one batch (one write).
     */
    public Builder appendBufferBytes(long bytes) {
      this.appendBufferBytes = bytes;
      return this;
    }

    /**
     * LEADERLESS: slots of the completion watermark's ring (24 bytes each): an append waits while
     * it would be this many records past the oldest record not yet finished or aborted, and fails
     * with {@link UnfinishedLimitException} after {@link #completionRingWait}. A power of two.
     */
    public Builder completionRingSlots(int records) {
      this.completionRingSlots = records;
      return this;
    }

    /** NONE, PROCESS (default) or FSYNC; see {@link Durability}. */
    public Builder durability(Durability durability) {
      this.durability = durability;
      return this;
    }

    /** Rotate before a record would make the active segment larger than this. */
    public Builder maxSegmentBytes(long bytes) {
      this.maxSegmentBytes = bytes;
      return this;
    }

    /** Rotate at the first append after the active segment got this old. */
    public Builder maxSegmentAge(Duration age) {
      this.maxSegmentAge = age;
      return this;
    }

    /** {@link TransactionLog#purgeExpired()} deletes flushed segments older than this. */
    public Builder retention(Duration retention) {
      this.retention = retention;
      return this;
    }

    /** FSYNC: force early once this many bytes wait. */
    public Builder groupCommitMaxBytes(long bytes) {
      this.groupCommitMaxBytes = bytes;
      return this;
    }

    /** FSYNC: force early once this many records wait. */
    public Builder groupCommitMaxRecords(int records) {
      this.groupCommitMaxRecords = records;
      return this;
    }

    /**
     * FSYNC: how long the force thread may wait after the first durability request for more
     * records to share one fsync; 0 forces at once (records written during a force share the next
     * one, so a lone caller never waits for company).
     */
    public Builder groupCommitMaxWait(Duration wait) {
      this.groupCommitMaxWait = wait;
      return this;
    }

    /**
     * LEADERLESS: how long an append waits for a slot of the completion ring (a finish or abort of
     * the oldest unfinished record frees it) before it fails.
     */
    public Builder completionRingWait(Duration wait) {
      this.completionRingWait = wait;
      return this;
    }

    /** Where the files live; default {@link JdkFileSystem#INSTANCE}. */
    public Builder fileSystem(LogFileSystem fileSystem) {
      this.fileSystem = fileSystem;
      return this;
    }

    /** The clock for segment age, abort markers and retention; default UTC system clock. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** The log's name in thread names and messages; default the directory's name. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /**
     * Validates every field, then builds.
     *
     * @throws InvalidLogSettingException naming the first field out of range, with the others suppressed in it
     */
    public LogSettings build() {
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
      return new LogSettings(this);
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

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof LogSettings)) {
      return false;
    }
    LogSettings s = (LogSettings) o;
    return durability == s.durability && maxSegmentBytes == s.maxSegmentBytes
        && maxSegmentAge.equals(s.maxSegmentAge) && retention.equals(s.retention)
        && groupCommitMaxBytes == s.groupCommitMaxBytes
        && groupCommitMaxRecords == s.groupCommitMaxRecords
        && groupCommitMaxWait.equals(s.groupCommitMaxWait) && fileSystem.equals(s.fileSystem)
        && clock.equals(s.clock) && Objects.equals(name, s.name) && appendMode == s.appendMode
        && appendBufferBytes == s.appendBufferBytes
        && completionRingSlots == s.completionRingSlots
        && completionRingWait.equals(s.completionRingWait) && recoveryMode == s.recoveryMode;
  }

  @Override
  public int hashCode() {
    return Objects.hash(durability, maxSegmentBytes, maxSegmentAge, retention, groupCommitMaxBytes,
        groupCommitMaxRecords, groupCommitMaxWait, fileSystem, clock, name, appendMode,
        appendBufferBytes, completionRingSlots, completionRingWait, recoveryMode);
  }
}
