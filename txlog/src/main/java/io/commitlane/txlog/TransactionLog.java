package io.commitlane.txlog;

import io.commitlane.annotation.InternalApi;
import io.commitlane.txlog.internal.append.LogWriterHost;
import io.commitlane.txlog.internal.append.AbortedPositions;
import io.commitlane.txlog.internal.append.ActorAppender;
import io.commitlane.txlog.internal.append.Appender;
import io.commitlane.txlog.internal.append.CommitWatermark;
import io.commitlane.txlog.internal.append.LeaderlessAppender;
import io.commitlane.txlog.internal.append.SerializedAppender;
import io.commitlane.txlog.internal.recovery.LogRecovery;
import io.commitlane.txlog.internal.recovery.LogReplay;
import io.commitlane.txlog.internal.segment.FlushedPosition;
import io.commitlane.txlog.internal.segment.Frame;
import io.commitlane.txlog.internal.segment.LogCopier;
import io.commitlane.txlog.internal.segment.LogDirectoryClaim;
import io.commitlane.txlog.internal.segment.LogRetention;
import io.commitlane.txlog.internal.segment.RecordCodec;
import io.commitlane.txlog.internal.segment.Segment;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import io.commitlane.txlog.internal.segment.SegmentSet;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

/**
 * One named transaction log: an append-only sequence of records in segment files, with a
 * committed watermark, readers, flush correlation, durability and retention. Thread-safe.
 *
 * <p>The life of a record: {@link #append} claims its place and puts its position in the
 * uncommitted set; the caller then writes to RocksDB and calls {@link #finish} (or {@link #abort}
 * if that failed). The committed watermark is the first position still uncommitted: readers see
 * only records below it, so a record is never visible before its data, nor before earlier
 * records finished. {@link #finish} also pairs the watermark with RocksDB's sequence, and {@link
 * #onFlushCompleted} turns a flush into a persisted flushed position: where crash replay starts.
 *
 * <p>This class is a facade: it checks arguments and ties together the parts that do the work.
 * {@link LogDirectoryClaim} keeps one writer per directory; {@link LogRecovery} scans the
 * directory at open and {@link SegmentSet} holds the segments; the {@link Appender} of the {@link
 * AppendMode} writes records and moves the {@link CommitWatermark}; {@link FlushedPosition}
 * persists where replay starts; {@link LogReplay} replays what was recovered, {@link LogReader}
 * reads, and {@link LogRetention} purges. This class only delegates, checks arguments and keeps
 * the close order; most of its length is the contract of its public methods.
 *
 * <pre>{@code
 * try (TransactionLog log = TransactionLog.open(dbDir.resolve("txlog/main"), LogSettings.defaults())) {
 *   log.replay(record -> applyToRocksDb(record.writes()));
 *   long p = log.append(txnId, clock.next(), entries, writes);
 *   writeToRocksDb(...);
 *   log.finish(p, db::getLatestSequenceNumber);
 * }
 * }</pre>
 */
public final class TransactionLog implements LogView, AutoCloseable {
  private final LogDirectoryClaim claim;
  private final Path directory;
  private final String name;
  private final LogSettings settings;
  private final long maxFrameBytes;
  private final SegmentSet segments;
  private final CommitWatermark watermark;
  private final AbortedPositions aborted = new AbortedPositions();
  private final FlushedPosition flushed;
  private final Appender appender;
  private final LogRecovery.Findings recovered;
  private final LogReplay replay;
  private final LogRetention retention;

  private final AtomicBoolean closeStarted = new AtomicBoolean();
  private volatile boolean closed;

  /**
   * Opens (creating if needed) the log in {@code directory} and recovers it: torn tails are
   * truncated, corrupt frames are counted and skipped, aborted records are remembered, and every
   * recovered record counts as committed. Damage other than a torn tail ({@link #damage()}) is
   * handled as the settings' {@link RecoveryMode} says. A directory can be open once per process,
   * however it is named (links are resolved).
   *
   * @throws LogIOException if the directory cannot be read or repaired
   * @throws LogDamagedException if it is damaged and the recovery mode is ABSOLUTE_CONSISTENCY
   * @throws TransactionLogException if the directory is already open in this process or another
   */
  public static TransactionLog open(Path directory, LogSettings settings) {
    LogDirectoryClaim claim = LogDirectoryClaim.take(directory, settings.fileSystem());
    try {
      return new TransactionLog(claim, settings);
    } catch (IOException e) {
      claim.release();
      throw new LogIOException("cannot open transaction log " + claim.directory(), e);
    } catch (RuntimeException | Error e) {
      claim.release();
      throw e;
    }
  }

  private TransactionLog(LogDirectoryClaim claim, LogSettings settings) throws IOException {
    this.claim = claim;
    this.directory = claim.directory();
    this.settings = settings;
    this.name = settings.name() != null ? settings.name()
        : directory.getFileName() == null ? directory.toString() : directory.getFileName().toString();
    this.maxFrameBytes = settings.maxSegmentBytes() - SegmentHeader.BYTES;
    this.flushed = new FlushedPosition(settings.fileSystem(), directory, name);
    long flushedPosition = flushed.get();
    LogRecovery recovery = LogRecovery.run(settings.fileSystem(), directory, settings.clock().millis(),
        flushed.atOpen());
    recovery.refuseDamage(settings.recoveryMode(), name);
    if (recovery.segments.isEmpty() && recovery.damage.isEmpty()) {
      flushed.expectInitial();
    }
    this.segments = SegmentSet.recovered(directory, name, settings, recovery, flushed);
    recovery.abortedPositions.forEach(aborted::add);
    this.recovered = recovery.findings();
    long end = recovery.end();
    this.replay = new LogReplay(flushedPosition, end, recovered.damage(), settings.recoveryMode());
    this.watermark = new CommitWatermark(end);
    this.appender = switch (settings.appendMode()) {
      case SERIALIZED -> new SerializedAppender(name, settings, segments, watermark, aborted, end);
      case LEADERLESS -> new LeaderlessAppender(name, settings, segments, watermark, aborted, end);
      case ACTOR -> new ActorAppender(this, name, settings, segments, watermark, aborted, end);
    };
    this.retention = new LogRetention(segments, flushed, aborted, appender.rotationLock(), this, settings);
  }

  /** The log's name (the directory's name unless the settings give one). */
  @Override
  public String name() {
    return name;
  }

  /** The directory holding the segment files. */
  @Override
  public Path directory() {
    return directory;
  }

  public LogSettings settings() {
    return settings;
  }

  // ---------------------------------------------------------------- appending

  /** {@link #append(long, long, int, List, ByteBuffer)} with flags 0. */
  public long append(long transactionId, long timestamp, List<ByteBuffer> entries,
      ByteBuffer writes) {
    return append(transactionId, timestamp, 0, entries, writes);
  }

  /**
   * Appends a record and adds its position to the uncommitted set. {@link AppendMode#SERIALIZED}:
   * when this returns the frame has reached the operating system (one positional write), so a
   * process crash loses nothing returned. LEADERLESS and ACTOR: the place is claimed and the frame
   * reaches the file before {@link #finish} returns (ACTOR: before {@link #finishAsync} completes).
   * With {@link Durability#FSYNC} use {@link #whenDurable} to learn when it is on disk. The buffers
   * are read, not consumed (their positions do not move).
   *
   * @param timestamp the caller's timestamp in millis, e.g. from a {@link MonotonicClock}
   * @param flags caller flags, 0..65535, returned in {@link LogRecord#flags()}
   * @param writes opaque bytes for replay, or {@code null}
   * @return the record's position
   * @throws RecordTooLargeException if the record does not fit in a segment
   * @throws LogIOException if the write failed (the log stays usable unless it says otherwise)
   * @throws LogClosedException if the log is closed
   */
  public long append(long transactionId, long timestamp, int flags, List<ByteBuffer> entries,
      ByteBuffer writes) {
    return appendRecord(transactionId, timestamp, null, flags, entries, writes).position();
  }

  /**
   * As {@link #append(long, long, int, List, ByteBuffer)}, but the record's timestamp is taken
   * from {@code clock} at the moment its place in the log is claimed: timestamps then increase in
   * log order, and records of several logs sharing one clock can be merged in the order they were
   * appended (crash replay does so). Called under a commit's locks, this also orders the records
   * of two commits to one key as the commits were ordered.
   *
   * @return the record's position and timestamp
   */
  public Appended append(long transactionId, MonotonicClock clock, int flags,
      List<ByteBuffer> entries, ByteBuffer writes) {
    return appendRecord(transactionId, 0, Objects.requireNonNull(clock, "clock"), flags, entries, writes);
  }

  /** Where a record went and the timestamp it was given. */
  public record Appended(long position, long timestamp) {}

  private Appended appendRecord(long transactionId, long timestamp, MonotonicClock clock,
      int flags, List<ByteBuffer> entries, ByteBuffer writes) {
    if (flags < 0 || flags > Frame.MAX_USER_FLAGS) {
      throw new IllegalArgumentException("flags must be in 0..65535: " + flags);
    }
    long payloadSize = RecordCodec.payloadSize(entries, writes);
    long frameBytes = Frame.HEADER_BYTES + payloadSize;
    if (frameBytes > maxFrameBytes) {
      throw new RecordTooLargeException(frameBytes, maxFrameBytes);
    }
    return appender.append(transactionId, timestamp, clock, flags, entries, writes, payloadSize);
  }

  /**
   * The caller's RocksDB write for {@code position} failed: marks the record aborted with an
   * abort marker frame (forced before returning under {@link Durability#FSYNC}), so readers never
   * return it and replay skips it, and removes it from the uncommitted set.
   *
   * @throws IllegalStateException if the position is not awaiting finish
   */
  public void abort(long position) {
    appender.abort(position);
  }

  /**
   * The caller's RocksDB write for {@code position} failed and {@link #abort} failed too (its
   * marker could not be written), but the caller made the record dead by its own means (crash
   * replay at the next open will skip it): readers never return it from now on, and, if the log
   * still runs, it leaves the uncommitted set, so the committed watermark does not stall on it.
   * Writes nothing: the record may stay in the file, and a reopened log recovers it as a live
   * record until the caller {@link #abandon abandons} it there. A position no longer awaiting
   * finish is only hidden from readers.
   */
  public void markDead(long position) {
    appender.markDead(position, aborted);
  }

  /**
   * The caller's RocksDB write for {@code position} returned. Removes the position from the
   * uncommitted set, advances the committed watermark over the contiguous finished prefix, then
   * calls {@code sequenceSampler} (RocksDB's latest sequence) and records the pair (watermark,
   * sequence) for {@link #onFlushCompleted}. The sampler runs under the log's state lock (ACTOR:
   * on the writer, once per batch): keep it short and never call back into this log from it except
   * for read-only queries. LEADERLESS and ACTOR: the record is in the file when this returns.
   *
   * @return the committed watermark after this finish
   * @throws IllegalStateException if the position is not awaiting finish
   */
  public long finish(long position, LongSupplier sequenceSampler) {
    return appender.finish(position, sequenceSampler);
  }

  /**
   * {@link #finish} as a commit's acknowledgement: the returned future completes once the record
   * is finished and as durable as the log's durability promises (PROCESS and NONE: in the file;
   * FSYNC: forced). {@link AppendMode#ACTOR}: this only queues the finish, without waiting; the
   * writer finishes it in its next batch and completes the future on its own thread (hop to your
   * executor before doing anything slow); it fails with {@link LogFailedException} if the log
   * could not write or force the record, with {@link LogClosedException} if the log closed first,
   * and with {@link IllegalStateException} if the position was not awaiting finish. The other
   * modes finish before returning (throwing as {@link #finish} does) and return {@link
   * #whenDurable}.
   */
  public CompletableFuture<Void> finishAsync(long position, LongSupplier sequenceSampler) {
    return appender.finishAsync(position, Objects.requireNonNull(sequenceSampler, "sequenceSampler"));
  }

  // ---------------------------------------------------------------- the writer of ACTOR mode

  /**
   * {@link AppendMode#ACTOR}: runs this log's writer turns on {@code host} from now on, or on the
   * log's own thread again with {@code null}. Call with {@code null} from the host's own thread
   * when the host stops (for an actor: in its post-stop): a wake-up it took but will not run then
   * goes to the log's thread. Other modes have no writer and ignore it.
   */
  @InternalApi
  public void hostWriter(LogWriterHost host) {
    appender.hostWriter(host);
  }

  /**
   * {@link AppendMode#ACTOR}: one writer turn, for the writer's host: writes what is queued (one
   * batch), forces it if a commit waits for durability, finishes what it can and completes the
   * acknowledgements it made good. Returns {@code true} if more is queued (call again; the host
   * may let other work in between). Safe from any thread: turns never overlap. Other modes return
   * {@code false}.
   */
  @InternalApi
  public boolean writeQueued() {
    return appender.writeQueued();
  }

  // ---------------------------------------------------------------- durability

  /**
   * Completes once the record at {@code position} is covered by an fsync ({@link
   * Durability#FSYNC}); already complete for NONE and PROCESS. Under FSYNC the future completes
   * on the thread that forced (SERIALIZED and LEADERLESS: the log's force thread {@code
   * commitlane-txlog-fsync-<name>}; ACTOR: the writer's host): callers must hop to their own
   * executor ({@code thenRunAsync(..., executor)}) before doing anything slow. It fails with
   * {@link LogIOException} if the fsync failed and with {@link LogClosedException} if the log
   * closed first without covering it; it never hangs past {@link #close()}.
   *
   * @param position a position returned by {@link #append}
   */
  public CompletableFuture<Void> whenDurable(long position) {
    return appender.whenDurable(position);
  }

  /**
   * Blocks until {@link #whenDurable} completes.
   *
   * @throws LogIOException if the fsync failed
   * @throws LogClosedException if the log closed first
   */
  public void awaitDurable(long position) {
    Appender.await(whenDurable(position));
  }

  // ---------------------------------------------------------------- committed watermark and flushed position

  /**
   * The committed watermark: every record below it has finished or aborted; the record at it (if
   * any) has not. Readers without {@code includeUncommitted} stop here.
   */
  @Override
  public long committedWatermark() {
    return watermark.get();
  }

  /**
   * Completes when the committed watermark is above {@code position}. It completes on the thread
   * that advanced the watermark (a {@link #finish} or {@link #abort} caller; ACTOR: the writer):
   * hop to your own executor. Fails with {@link LogClosedException} when the log closes.
   */
  @Override
  public CompletableFuture<Void> whenCommittedBeyond(long position) {
    return watermark.whenBeyond(position, this);
  }

  /**
   * The persisted flushed position: records below it are held by a completed RocksDB flush, so
   * crash replay starts here. {@link LogPosition#START} until the first flush.
   */
  @Override
  public long flushedPosition() {
    return flushed.get();
  }

  /**
   * RocksDB finished a flush holding every write up to {@code flushedSequence}: persists the
   * largest recorded committed prefix whose sequence is at most that as the flushed position
   * (atomically: temp file, force, rename, force directory), never moving it backwards, and drops
   * the pairs it covered. {@link AppendMode#ACTOR}: handled between the writer's batches. Does
   * nothing after close.
   *
   * @throws LogIOException if the flushed position could not be persisted (it stays where it was)
   */
  public void onFlushCompleted(long flushedSequence) {
    if (closed) {
      return;
    }
    long prefix = appender.inFlushOrder(() -> watermark.takeFlushed(flushedSequence));
    if (prefix > flushed.get()) {
      flushed.advanceTo(prefix);
    }
  }

  /**
   * Records that RocksDB holds every record below {@code position} that finished before a flush
   * the caller waited for (read the committed watermark before that flush started, and pass it
   * here): persists it as the flushed position unless that is already further. For a clean close
   * and the end of replay, where the caller flushes RocksDB itself rather than waiting for a flush
   * event to be correlated.
   *
   * @throws LogIOException if it could not be persisted
   */
  public void markFlushedThrough(long position) {
    if (closed) {
      return;
    }
    flushed.advanceTo(Math.min(position, watermark.get()));
  }

  // ---------------------------------------------------------------- copies

  /**
   * Copies this log into {@code target} (a new directory) while appends go on: the records
   * stamped (by the database's clock) before {@code timestampLimit}, and no later ones, up to a
   * frame boundary, with a flushed position of {@code flushedPosition}, which the caller vouches
   * its copy of the data holds (replay of the copy starts there). Several logs copied with one
   * limit hold the same prefix of commit order. Every record stamped before the limit is in the
   * copy (the leaderless and actor modes write their pending records out first; a serialized
   * append in progress is waited for). Appends wait only while the segment list is taken; a
   * segment purged during the copy shortens it at the old end (see {@link LogCopier}). With
   * {@code reuseFrom} (an earlier copy of this log, or null), a sealed segment it holds whole is
   * hard-linked instead of copied, so successive backups share the log's old segments.
   *
   * @throws LogIOException if reading this log or writing the copy failed (the copy is incomplete: remove it)
   */
  public LogCopy copyTo(Path target, long flushedPosition, long timestampLimit, Path reuseFrom) {
    checkOpen();
    long end = writtenEnd();
    Lock rotation = appender.rotationLock();
    List<Segment> listed;
    rotation.lock();
    try {
      if (settings.appendMode() == AppendMode.SERIALIZED) {
        end = writtenEnd(); // the append lock: an append that took its stamp has written its frame
      }
      listed = new java.util.ArrayList<>(segments.all());
    } finally {
      rotation.unlock();
    }
    long cut = end;
    try (LogReader r = reader(ReadRequest.fromTimestamp(timestampLimit).includeUncommitted(true).endBefore(end))) {
      while (true) {
        LogRecord rec;
        try {
          rec = r.next();
        } catch (CorruptLogFrameException e) {
          continue;
        }
        if (rec == null) {
          break;
        }
        if (rec.timestamp() >= timestampLimit) {
          cut = rec.position(); // stamps rise with position: everything from here on is later
          break;
        }
      }
    }
    try {
      return LogCopier.copy(settings.fileSystem(), LogCopier.parts(listed, cut), cut, target, flushedPosition, reuseFrom);
    } catch (IOException e) {
      throw new LogIOException("cannot copy transaction log " + name + " into " + target + ": " + e.getMessage()
          + "; check the space and permissions there", e);
    }
  }

  // ---------------------------------------------------------------- reading

  /** A reader positioned as {@code request} says. */
  @Override
  public LogReader reader(ReadRequest request) {
    checkOpen();
    return new LogReader(this, segments, aborted, request);
  }

  // ---------------------------------------------------------------- recovery and replay

  /**
   * Offers the records recovered at open that lie at or after the flushed position and were not
   * aborted, in log order. Idempotent: every call offers the same records (the range is fixed at
   * open). Damage in that range ({@link #replayDamage()}) is handled as the recovery mode says:
   * POINT_IN_TIME stops before the first damage, SKIP_CORRUPTED goes past it (corrupt frames go to
   * {@link RecordConsumer#onCorruptFrame}, records of missing segments are simply absent).
   */
  public void replay(RecordConsumer consumer) {
    replay.replay(this, consumer);
  }

  /** Where crash replay starts: the flushed position read at open. */
  public long replayStart() {
    return replay.start();
  }

  /** Where crash replay ends: the end of what recovery found at open. */
  public long replayEnd() {
    return replay.end();
  }

  /** The damage found at open that replay would cross ({@link #replayStart()} on), in log order. */
  public List<LogDamage> replayDamage() {
    return replay.damageCrossed();
  }

  /** Where point-in-time replay stops: the first damage at or after the replay start, else {@link Long#MAX_VALUE}. */
  public long replayStop() {
    return replay.stop();
  }

  /**
   * Marks recovered records as abandoned: their data was not restored by replay (they lie past a
   * point-in-time stop, or the caller knows their commit failed: see {@link #markDead}), so
   * readers and later replays must never return them. Written as abort markers (forced under
   * {@link Durability#FSYNC}). For the replay at open, before any append.
   *
   * @throws IllegalArgumentException if a position is not a recovered record
   */
  public void abandon(List<Long> positions) {
    replay.requireRecovered(positions, aborted, name);
    appender.abandon(positions);
  }

  /** Every damage found at open (other than a torn tail), in log order. */
  @Override
  public List<LogDamage> damage() {
    return recovered.damage();
  }

  /** The corrupt frames recovery found at open (each one lost record). */
  public List<CorruptFrame> corruptFrames() {
    return recovered.corruptFrames();
  }

  /** Bytes of torn tail that recovery cut off at open. */
  public long tornBytesTruncated() {
    return recovered.tornBytesTruncated();
  }

  /** Entries of the log directory that are not the log's (left alone), found at open. */
  public List<Path> foreignEntries() {
    return recovered.foreign();
  }

  /**
   * The newest record timestamp recovered at open, or {@link Long#MIN_VALUE} if none; seed a
   * {@link MonotonicClock} with it via {@link MonotonicClock#advancePast}.
   */
  public long newestRecoveredTimestamp() {
    return recovered.newestTimestamp();
  }

  // ---------------------------------------------------------------- retention

  /**
   * Deletes the oldest segments whose newest record is older than {@code olderThan}, except any
   * segment holding records at or above the flushed position (replay may need them) and the
   * active segment.
   */
  @Override
  public PurgeResult purge(Instant olderThan) {
    return retention.purge(olderThan);
  }

  /** {@link #purge} of what is older than the retention setting. */
  @Override
  public PurgeResult purgeExpired() {
    return retention.purgeExpired();
  }

  // ---------------------------------------------------------------- stats and lifecycle

  /** A snapshot of the log's counters. */
  @Override
  public LogStats stats() {
    int files = 0;
    long totalBytes = 0;
    for (Segment s : segments.all()) {
      files++;
      totalBytes += s.end;
    }
    long flushedAt = flushed.get();
    Appender.Counters c = appender.counters();
    return new LogStats(files, totalBytes, c.records(), c.bytes(), recovered.records(),
        c.unfinished(), c.lag(), aborted.size(), recovered.corruptFrames().size(), c.fsyncs(), c.recordsPerFsync(),
        retention.keptUnflushed(flushedAt), watermark.get(), flushedAt, c.durablePosition());
  }

  /**
   * Closes the log; idempotent. New appends fail with {@link LogClosedException}; what was
   * appended reaches the file (under FSYNC a final force runs) and pending {@link #whenDurable}
   * and {@link #finishAsync} futures complete (or fail with the write's or force's error); {@link
   * #whenCommittedBeyond} futures fail with {@link LogClosedException}.
   *
   * @throws LogFailedException if the log could not make every appended record durable (its
   *     final write or force failed now or earlier): records may be missing after a crash
   * @throws LogIOException if closing a file failed (everything is released anyway)
   */
  @Override
  public void close() {
    if (!closeStarted.compareAndSet(false, true)) {
      return;
    }
    IOException closeError;
    TransactionLogException notDurable;
    try {
      closed = true;
      notDurable = appender.close();
      watermark.failWaiters(new LogClosedException(name));
      flushed.close(); // waits for a flushed-position write in progress
      closeError = segments.closeAll();
    } finally {
      claim.release();
    }
    if (notDurable != null) {
      throw new LogFailedException(name, "making every appended record durable at close", notDurable);
    }
    if (closeError != null) {
      throw new LogIOException("closing transaction log '" + name + "' failed", closeError);
    }
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  @Override
  public String toString() {
    return "TransactionLog[" + name + " at " + directory + ", watermark "
        + LogPosition.toString(watermark.get()) + "]";
  }

  // ---------------------------------------------------------------- for readers and tests

  /**
   * The end of what a reader that includes uncommitted records may read. LEADERLESS and ACTOR:
   * records not yet in the file are written out first (no fsync), so such a reader sees every
   * append.
   */
  long writtenEnd() {
    return appender.readableEnd();
  }

  /** The recorded (committed prefix, sequence) pairs not yet taken by a flush, oldest first. */
  long[][] flushCorrelationPairs() {
    return watermark.pairs();
  }

  void checkOpen() {
    if (closed) {
      throw new LogClosedException(name);
    }
  }
}
