package io.commitlane.txlog.internal.recovery;

import io.commitlane.txlog.CorruptLogFrameException;
import io.commitlane.txlog.LogDamage;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.LogView;
import io.commitlane.txlog.ReadRequest;
import io.commitlane.txlog.RecordConsumer;
import io.commitlane.txlog.RecoveryMode;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.internal.append.AbortedPositions;
import java.util.ArrayList;
import java.util.List;

/**
 * Crash replay of a log, fixed at open: the records from the flushed position read at open to the
 * end recovery found, and what to do at damage in that range. POINT_IN_TIME (and
 * ABSOLUTE_CONSISTENCY, which opens only undamaged logs) stops before the first damage;
 * SKIP_CORRUPTED goes past it. Immutable: every replay offers the same records.
 */
public final class LogReplay {
  private final long start;
  private final long end;
  /** Every damage found at open, in log order. */
  private final List<LogDamage> damage;
  private final RecoveryMode mode;

  public LogReplay(long start, long end, List<LogDamage> damage, RecoveryMode mode) {
    this.start = start;
    this.end = end;
    this.damage = damage;
    this.mode = mode;
  }

  /** {@link TransactionLog#replayStart()}. */
  public long start() {
    return start;
  }

  /** {@link TransactionLog#replayEnd()}. */
  public long end() {
    return end;
  }

  /** {@link TransactionLog#replay}: reads the range through {@code log}'s readers. */
  public void replay(LogView log, RecordConsumer consumer) {
    long stop = mode == RecoveryMode.SKIP_CORRUPTED ? Long.MAX_VALUE : stop();
    try (LogReader reader = log.reader(ReadRequest.fromPosition(start).endBefore(end))) {
      while (true) {
        LogRecord record;
        try {
          record = reader.next();
        } catch (CorruptLogFrameException e) {
          consumer.onCorruptFrame(e);
          if (e.position() >= stop) {
            return;
          }
          continue;
        }
        if (record == null || record.position() >= stop) {
          return;
        }
        consumer.accept(record);
      }
    }
  }

  /** {@link TransactionLog#replayDamage()}: the damage replay would cross, in log order. */
  public List<LogDamage> damageCrossed() {
    List<LogDamage> out = new ArrayList<>();
    for (LogDamage d : damage) {
      if (d.resume() > start || d.kind() == LogDamage.Kind.FLUSHED_POSITION) {
        out.add(d);
      }
    }
    return out;
  }

  /** {@link TransactionLog#replayStop()}: the first damage at or after the start, else {@link Long#MAX_VALUE}. */
  public long stop() {
    for (LogDamage d : damage) {
      // A lost flushed position loses no record: replay starts at the log's start instead.
      if (d.resume() > start && d.kind() != LogDamage.Kind.FLUSHED_POSITION) {
        return Math.max(d.position(), start);
      }
    }
    return Long.MAX_VALUE;
  }

  /**
   * For {@link TransactionLog#abandon}: every position must be a recovered record not yet aborted.
   *
   * @throws IllegalArgumentException naming the first position that is not
   */
  public void requireRecovered(List<Long> positions, AbortedPositions aborted, String logName) {
    for (long position : positions) {
      if (position >= end || aborted.contains(position)) {
        throw new IllegalArgumentException("position " + LogPosition.toString(position)
            + " is not a recovered record of transaction log '" + logName + "'");
      }
    }
  }
}
