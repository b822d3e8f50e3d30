package io.commitlane.txlog.internal.settings;

import io.commitlane.annotation.InternalApi;
import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.RecoveryMode;
import java.time.Duration;
import java.util.List;

/**
 * INTERNAL API. Every setting of a transaction log, defined once (key, Java name, range, doc).
 * Defaults: {@code reference.conf}'s {@code commitlane.txlog { }}; {@code LogSettings.defaults()}
 * is the same values for a log opened without Pekko (a test keeps them equal).
 */
@InternalApi
public final class LogKeys {
  public static final LogKey DURABILITY = LogKey.oneOf("txlog.durability", "durability", Durability.values(),
      "when an append counts as durable: never forced, written to the file, or fsynced");
  public static final LogKey MAX_SEGMENT_SIZE = LogKey.number("txlog.max-segment-size", "maxSegmentBytes", 4L << 10, 1L << 30,
      "4 KiB..1 GiB", "bytes", "rotate a segment file at this size");
  public static final LogKey MAX_SEGMENT_AGE = LogKey.duration("txlog.max-segment-age", "maxSegmentAge", Duration.ofMillis(1),
      Duration.ofDays(365), "1 ms..365 days", "rotate a segment older than this (checked at append)");
  public static final LogKey RETENTION = LogKey.duration("txlog.retention", "retention", Duration.ZERO, Duration.ofDays(3650),
      "0..3650 days", "purge segments older than this, never one holding records RocksDB has not flushed");
  public static final LogKey RECOVERY = LogKey.oneOf("txlog.recovery", "recoveryMode", RecoveryMode.values(),
      "what opening does with a damaged log");
  public static final LogKey GROUP_COMMIT_MAX_WAIT = LogKey.duration("txlog.group-commit-max-wait", "groupCommitMaxWait",
      Duration.ZERO, Duration.ofSeconds(1), "0..1 s", "fsync durability: how long the force thread may wait for more records");
  public static final LogKey APPEND = LogKey.oneOf("txlog.append", "appendMode", AppendMode.values(),
      "how concurrent commits append their records");
  public static final LogKey APPEND_BUFFER_SIZE = LogKey.number("txlog.append-buffer-size", "appendBufferBytes", 4L << 10,
      256L << 20, "4 KiB..256 MiB", "bytes", "leaderless: each ping-pong buffer; actor: the most one batch takes");
  public static final LogKey COMPLETION_RING_SLOTS = LogKey.number("txlog.completion-ring-slots", "completionRingSlots", 16,
      1 << 20, "16..1048576", "records, a power of two", "leaderless: slots of the completion watermark's ring");
  public static final LogKey COMPLETION_RING_WAIT = LogKey.duration("txlog.completion-ring-wait", "completionRingWait",
      Duration.ZERO, Duration.ofHours(1), "0..1 hour", "leaderless: how long an append waits for a ring slot before it fails");
  /** Set in Java only ({@code LogSettings.withGroupCommitMax*}), not in reference.conf. */
  public static final LogKey GROUP_COMMIT_MAX_BYTES = LogKey.number(null, "groupCommitMaxBytes", 1, 1L << 30, "1 B..1 GiB", "bytes",
      "fsync durability: force early once this many bytes wait");
  /** Set in Java only ({@code LogSettings.withGroupCommitMax*}), not in reference.conf. */
  public static final LogKey GROUP_COMMIT_MAX_RECORDS = LogKey.number(null, "groupCommitMaxRecords", 1, 1_000_000, "1..1000000",
      "records", "fsync durability: force early once this many records wait");

  /** Every setting, those with a config key first in reference.conf's order. */
  public static final List<LogKey> ALL = List.of(DURABILITY, MAX_SEGMENT_SIZE, MAX_SEGMENT_AGE, RETENTION, RECOVERY,
      GROUP_COMMIT_MAX_WAIT, APPEND, APPEND_BUFFER_SIZE, COMPLETION_RING_SLOTS, COMPLETION_RING_WAIT, GROUP_COMMIT_MAX_BYTES,
      GROUP_COMMIT_MAX_RECORDS);

  private LogKeys() {}

  /** The setting whose {@code LogSettings} component is {@code javaName}, or null. */
  public static LogKey byJavaName(String javaName) {
    for (LogKey k : ALL) {
      if (k.javaName().equals(javaName)) {
        return k;
      }
    }
    return null;
  }
}
