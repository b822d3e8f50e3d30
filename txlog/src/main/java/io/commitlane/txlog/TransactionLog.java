package io.commitlane.txlog;

import io.commitlane.txlog.fs.LogFile;
import io.commitlane.txlog.fs.LogFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * One named transaction log: an append-only sequence of records in segment files, with a
 * committed watermark, readers, flush correlation, durability and retention. Thread-safe.
 *
 * <p>The life of a record: {@link #append} writes its frame and puts its position in the
 * uncommitted set; the caller then writes to RocksDB and calls {@link #finish} (or {@link #abort}
 * if that failed). The committed watermark is the first position still uncommitted: readers see
 * only records below it, so a record is never visible before its data, nor before earlier
 * records finished. {@link #finish} also pairs the watermark with RocksDB's sequence, and {@link
 * #onFlushCompleted} turns a flush into a persisted flushed position: where crash replay starts.
 *
 * <p>Locks: an append lock orders writes to the active segment (position claim + one positional
 * write per record); a state lock guards the uncommitted set, the watermark and the flush pairs.
 * Appends take the state lock inside the append lock, never the other way round. fsync runs on a
 * separate thread ({@link Durability#FSYNC} only) and never under either lock.
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
public final class TransactionLog implements AutoCloseable {
  private static final Set<Path> OPEN_DIRECTORIES = ConcurrentHashMap.newKeySet();

  private final Path directory;
  /** Held while open: keeps other processes from writing this log. */
  private final java.io.Closeable directoryLock;
  private final String name;
  private final LogSettings settings;
  private final LogFileSystem fs;
  private final Clock clock;
  private final long maxFrameBytes;
  private final long maxSegmentAgeMillis;
  private final ConcurrentSkipListMap<Long, Segment> segments = new ConcurrentSkipListMap<>();

  // Guarded by appendLock.
  private final ReentrantLock appendLock = new ReentrantLock();
  private volatile Segment active;
  private long nextSegmentNumber;
  private volatile long bytesWritten;
  private volatile long recordsWritten;

  // Guarded by stateLock.
  private final ReentrantLock stateLock = new ReentrantLock();
  private final UncommittedPositions uncommitted = new UncommittedPositions();
  private final FlushCorrelation correlation = new FlushCorrelation();
  private final WatermarkWaiters watermarkWaiters = new WatermarkWaiters();
  private volatile long writtenEnd;
  private volatile long committedWatermark;

  private final AbortedPositions aborted = new AbortedPositions();
  private final FlushedPositionFile flushedFile;
  private final Object flushedFileLock = new Object();
  private volatile long flushedPosition;

  private final GroupCommitter committer;
  /** The write path of {@link AppendMode#LEADERLESS}; {@code null} when serialized. */
  private final LeaderlessAppender leaderless;
  private final long replayStart;
  private final long replayEnd;
  private final long recordsRecovered;
  private final List<CorruptFrame> recoveredCorruptFrames;
  private final List<LogDamage> damage;
  private final List<Path> foreignEntries;
  private final long tornBytesTruncated;
  private final long newestRecoveredTimestamp;

  private final AtomicBoolean closeStarted = new AtomicBoolean();
  private volatile boolean closed;
  private volatile TransactionLogException failure;

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
    Path dir;
    try {
      settings.fileSystem().createDirectories(directory);
      dir = settings.fileSystem().realPath(directory.toAbsolutePath().normalize());
    } catch (IOException e) {
      throw new LogIOException("cannot open transaction log " + directory, e);
    }
    if (!OPEN_DIRECTORIES.add(dir)) {
      throw new TransactionLogException("transaction log " + dir + " is already open in this"
          + " process; share that instance or close it first");
    }
    java.io.Closeable lock = null;
    try {
      // One writer across processes too: a second would append at the same offsets.
      lock = settings.fileSystem().lockDirectory(dir);
      if (lock == null) {
        throw new TransactionLogException("transaction log " + dir + " is open in another process;"
            + " only one process may write a log");
      }
      return new TransactionLog(dir, settings, lock);
    } catch (IOException e) {
      release(lock);
      OPEN_DIRECTORIES.remove(dir);
      throw new LogIOException("cannot open transaction log " + dir, e);
    } catch (RuntimeException | Error e) {
      release(lock);
      OPEN_DIRECTORIES.remove(dir);
      throw e;
    }
  }

  private static void release(java.io.Closeable lock) {
    if (lock != null) {
      try {
        lock.close();
      } catch (IOException ignored) {
        // Releasing after a failed open: the open's own error is what matters.
      }
    }
  }

  private TransactionLog(Path directory, LogSettings settings, java.io.Closeable lock) throws IOException {
    this.directoryLock = lock;
    this.directory = directory;
    this.settings = settings;
    this.name = settings.name() != null ? settings.name()
        : directory.getFileName() == null ? directory.toString() : directory.getFileName().toString();
    this.fs = settings.fileSystem();
    this.clock = settings.clock();
    this.maxFrameBytes = settings.maxSegmentBytes() - SegmentHeader.BYTES;
    this.maxSegmentAgeMillis = settings.maxSegmentAge().toMillis();
    this.flushedFile = new FlushedPositionFile(fs, directory);
    this.flushedPosition = flushedFile.read();
    LogRecovery recovery = LogRecovery.run(fs, directory, clock.millis(), flushedPosition);
    if (!recovery.damage.isEmpty() && settings.recoveryMode() == RecoveryMode.ABSOLUTE_CONSISTENCY) {
      for (Segment s : recovery.segments) {
        s.close();
      }
      throw new LogDamagedException(name, recovery.damage);
    }
    for (Segment s : recovery.segments) {
      segments.put(s.number, s);
    }
    recovery.abortedPositions.forEach(aborted::add);
    this.recordsRecovered = recovery.records;
    this.recoveredCorruptFrames = List.copyOf(recovery.corruptFrames);
    this.damage = List.copyOf(recovery.damage);
    this.foreignEntries = List.copyOf(recovery.foreign);
    this.tornBytesTruncated = recovery.tornBytesTruncated;
    this.newestRecoveredTimestamp = recovery.newestTimestamp;

    long end = recovery.end();
    this.writtenEnd = end;
    this.committedWatermark = end;
    this.replayStart = flushedPosition;
    this.replayEnd = end;
    Segment last = segments.isEmpty() ? null : segments.lastEntry().getValue();
    this.nextSegmentNumber = recovery.nextSegmentNumber;
    if (last != null && settings.durability() == Durability.FSYNC) {
      // Recovered bytes may sit only in the page cache (after a process crash); they count as
      // committed now, so make them durable before anything builds on them.
      last.force();
    }
    if (flushedPosition > end || (last != null && last.number != nextSegmentNumber - 1)) {
      // The persisted flushed position is past the log's end (its unsynced tail was lost with
      // the machine), or an unreadable entry sits above the last readable segment. New records
      // must land above both, or replay would skip them or read them out of order: start afresh.
      if (last != null) {
        last.sealed = true;
      }
      if (flushedPosition > end) {
        nextSegmentNumber = Math.max(nextSegmentNumber, LogPosition.segment(flushedPosition) + 1);
      }
    } else {
      this.active = last;
    }
    if (settings.appendMode() == AppendMode.LEADERLESS) {
      this.leaderless = new LeaderlessAppender(name, new LeaderlessSegments(), active, end, settings);
    } else {
      this.leaderless = null;
    }
    if (settings.durability() == Durability.FSYNC) {
      this.committer = new GroupCommitter(name, end, this::forceActive,
          leaderless == null ? () -> bytesWritten : leaderless::bytesClaimed,
          leaderless == null ? () -> recordsWritten : leaderless::recordsClaimed, settings);
      this.committer.start();
    } else {
      this.committer = null;
    }
  }

  /** The log's name (the directory's name unless the settings give one). */
  public String name() {
    return name;
  }

  /** The directory holding the segment files. */
  public Path directory() {
    return directory;
  }

  public LogSettings settings() {
    return settings;
  }

  /**
   * The newest record timestamp recovered at open, or {@link Long#MIN_VALUE} if none; seed a
   * {@link MonotonicClock} with it via {@link MonotonicClock#advancePast}.
   */
  public long newestRecoveredTimestamp() {
    return newestRecoveredTimestamp;
  }

  // ---------------------------------------------------------------- appending

  /** {@link #append(long, long, int, List, ByteBuffer)} with flags 0. */
  public long append(long transactionId, long timestamp, List<ByteBuffer> entries,
      ByteBuffer writes) {
    return append(transactionId, timestamp, 0, entries, writes);
  }

  /**
   * Writes a record and adds its position to the uncommitted set. When this returns the frame
   * has reached the operating system (one positional write), so a process crash loses nothing
   * returned; with {@link Durability#FSYNC} use {@link #whenDurable} to learn when it is on disk.
   * The buffers are read, not consumed (their positions do not move).
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
    return appendRecord(transactionId, 0, java.util.Objects.requireNonNull(clock, "clock"), flags,
        entries, writes);
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
    // Encode outside the lock: only the position claim, the timestamp and the write are serialized.
    ByteBuffer frame = FrameEncoder.get().record(transactionId, timestamp, flags, entries, writes,
        payloadSize);
    if (leaderless != null) {
      checkOpen();
      long position = leaderless.append(frame, clock);
      return new Appended(position, Frame.timestamp(frame, frame.position()));
    }
    appendLock.lock();
    try {
      checkWritable();
      Segment segment = segmentFor(frameBytes);
      long offset = segment.end;
      long position = LogPosition.of(segment.number, offset);
      long stamped = timestamp;
      if (clock != null) {
        stamped = clock.next();
        FrameEncoder.get().restamp(frame, stamped);
      }
      write(segment, frame, offset);
      segment.noteRecord(stamped);
      segment.end = offset + frameBytes;
      bytesWritten += frameBytes;
      recordsWritten++;
      stateLock.lock();
      try {
        uncommitted.add(position);
        writtenEnd = LogPosition.of(segment.number, offset + frameBytes);
      } finally {
        stateLock.unlock();
      }
      return new Appended(position, stamped);
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * The caller's RocksDB write for {@code position} failed: marks the record aborted with an
   * abort marker frame (forced before returning under {@link Durability#FSYNC}), so readers never
   * return it and replay skips it, and removes it from the uncommitted set.
   *
   * @throws IllegalStateException if the position is not awaiting finish
   */
  public void abort(long position) {
    if (leaderless != null) {
      abortLeaderless(position);
      return;
    }
    ByteBuffer frame = FrameEncoder.get().abort(clock.millis(), position);
    long frameBytes = frame.remaining();
    long markerPosition;
    List<CompletableFuture<Void>> ready;
    appendLock.lock();
    try {
      checkWritable();
      stateLock.lock();
      try {
        requireUncommitted(position);
      } finally {
        stateLock.unlock();
      }
      Segment segment = segmentFor(frameBytes);
      long offset = segment.end;
      markerPosition = LogPosition.of(segment.number, offset);
      write(segment, frame, offset);
      segment.end = offset + frameBytes;
      bytesWritten += frameBytes;
      stateLock.lock();
      try {
        writtenEnd = LogPosition.of(segment.number, offset + frameBytes);
        // Mark aborted before the watermark can pass it, so no reader ever returns it.
        aborted.add(position);
        uncommitted.finish(position);
        ready = advanceWatermark();
      } finally {
        stateLock.unlock();
      }
    } finally {
      appendLock.unlock();
    }
    completeAll(ready);
    if (committer != null) {
      awaitDurable(markerPosition);
    }
  }

  /**
   * The caller's RocksDB write for {@code position} returned. Under the state lock: removes the
   * position from the uncommitted set, advances the committed watermark over the contiguous
   * finished prefix, then calls {@code sequenceSampler} (RocksDB's latest sequence) and records
   * the pair (watermark, sequence) for {@link #onFlushCompleted}. The sampler runs under the lock:
   * keep it short and never call back into this log from it except for read-only queries.
   *
   * @return the committed watermark after this finish
   * @throws IllegalStateException if the position is not awaiting finish
   */
  public long finish(long position, LongSupplier sequenceSampler) {
    if (leaderless != null) {
      checkOpen();
      leaderless.complete(position);
      return publishLeaderless(sequenceSampler);
    }
    List<CompletableFuture<Void>> ready;
    long watermark;
    stateLock.lock();
    try {
      checkOpen();
      requireUncommitted(position);
      uncommitted.finish(position);
      long before = committedWatermark;
      ready = advanceWatermark();
      watermark = committedWatermark;
      // The sample must come now, under this lock and after the position left the uncommitted
      // set: every record below the watermark has then returned from its RocksDB write, so its
      // sequence is <= the one read here. Sampled earlier (seed 000's race), an earlier position
      // could commit at a later sequence and finish in between, and a flush at the stale sample
      // would persist a flushed position past data that flush did not hold.
      long sequence = sequenceSampler.getAsLong();
      if (watermark > before) {
        correlation.record(watermark, sequence);
      }
    } finally {
      stateLock.unlock();
    }
    completeAll(ready);
    return watermark;
  }

  /**
   * Leaderless finish: the appender moved the completion watermark; publish its payload (the end
   * position of the completed prefix) as the committed watermark, sample RocksDB's sequence now
   * (every record below it finished its write before its completion was added, which happened
   * before this read) and release waiters. Several finishers may race here: the lock keeps the
   * watermark and the flush pairs monotonic.
   */
  private long publishLeaderless(LongSupplier sequenceSampler) {
    List<CompletableFuture<Void>> ready = List.of();
    long watermark;
    stateLock.lock();
    try {
      long published = leaderless.committedPosition();
      if (published > committedWatermark) {
        committedWatermark = published;
        if (!watermarkWaiters.isEmpty()) {
          ready = watermarkWaiters.takeBelow(published);
        }
        if (sequenceSampler != null) {
          correlation.record(published, sequenceSampler.getAsLong());
        }
      }
      watermark = committedWatermark;
    } finally {
      stateLock.unlock();
    }
    completeAll(ready);
    return watermark;
  }

  private void abortLeaderless(long position) {
    checkOpen();
    long ordinal = leaderless.requireUnfinished(position);
    ByteBuffer frame = FrameEncoder.get().abort(clock.millis(), position);
    long markerPosition = leaderless.append(frame, null);
    stateLock.lock();
    try {
      // Marked aborted before the watermark can pass it, so no reader ever returns it.
      aborted.add(position);
    } finally {
      stateLock.unlock();
    }
    leaderless.completeAborted(ordinal, markerPosition);
    publishLeaderless(null);
    if (committer != null) {
      awaitDurable(markerPosition);
    }
  }

  /**
   * RocksDB finished a flush holding every write up to {@code flushedSequence}: persists the
   * largest recorded committed prefix whose sequence is at most that as the flushed position
   * (atomically: temp file, force, rename, force directory), never moving it backwards, and drops
   * the pairs it covered. Does nothing after close.
   *
   * @throws LogIOException if the flushed position could not be persisted (it stays where it was)
   */
  public void onFlushCompleted(long flushedSequence) {
    long prefix;
    stateLock.lock();
    try {
      if (closed) {
        return;
      }
      prefix = correlation.takeFlushed(flushedSequence);
    } finally {
      stateLock.unlock();
    }
    if (prefix <= flushedPosition) {
      return;
    }
    synchronized (flushedFileLock) {
      if (prefix <= flushedPosition || closed) {
        return;
      }
      try {
        flushedFile.write(prefix);
      } catch (IOException e) {
        throw new LogIOException("cannot persist the flushed position of transaction log '" + name
            + "' (it stays at " + LogPosition.toString(flushedPosition) + ")", e);
      }
      flushedPosition = prefix;
    }
  }

  /**
   * The persisted flushed position: records below it are held by a completed RocksDB flush, so
   * crash replay starts here. {@link LogPosition#START} until the first flush.
   */
  public long flushedPosition() {
    return flushedPosition;
  }

  /**
   * The committed watermark: every record below it has finished or aborted; the record at it (if
   * any) has not. Readers without {@code includeUncommitted} stop here.
   */
  public long committedWatermark() {
    return committedWatermark;
  }

  // ---------------------------------------------------------------- durability

  /**
   * Completes once the record at {@code position} is covered by an fsync ({@link
   * Durability#FSYNC}); already complete for NONE and PROCESS. Under FSYNC the future completes
   * on the log's force thread ({@code commitlane-txlog-fsync-<name>}): callers must hop to their
   * own executor ({@code thenRunAsync(..., executor)}) before doing anything slow. It fails with
   * {@link LogIOException} if the fsync failed and with {@link LogClosedException} if the log
   * closed first without covering it; it never hangs past {@link #close()}.
   *
   * @param position a position returned by {@link #append}
   */
  public CompletableFuture<Void> whenDurable(long position) {
    if (committer == null) {
      return CompletableFuture.completedFuture(null);
    }
    if (position >= (leaderless != null ? leaderless.claimedEnd() : writtenEnd)) {
      throw new IllegalArgumentException("position " + LogPosition.toString(position)
          + " was not appended to transaction log '" + name + "'");
    }
    return committer.whenDurable(position);
  }

  /**
   * Blocks until {@link #whenDurable} completes.
   *
   * @throws LogIOException if the fsync failed
   * @throws LogClosedException if the log closed first
   */
  public void awaitDurable(long position) {
    try {
      whenDurable(position).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof TransactionLogException) {
        throw (TransactionLogException) e.getCause();
      }
      throw e;
    }
  }

  private long forceActive() throws IOException {
    if (leaderless != null) {
      return leaderless.force();
    }
    // Capture the end first: every byte below it is in the segment read next or in an older one,
    // and rotation forced older ones before it published a newer active segment.
    long target = writtenEnd;
    Segment segment = active;
    if (segment != null) {
      segment.force();
    }
    return target;
  }

  // ---------------------------------------------------------------- reading

  /** A reader positioned as {@code request} says. */
  public LogReader reader(ReadRequest request) {
    checkOpen();
    return new LogReader(this, request);
  }

  /**
   * Completes when the committed watermark is above {@code position}. It completes on the thread
   * that advanced the watermark (a {@link #finish} or {@link #abort} caller): hop to your own
   * executor. Fails with {@link LogClosedException} when the log closes.
   */
  public CompletableFuture<Void> whenCommittedBeyond(long position) {
    if (committedWatermark > position) {
      return CompletableFuture.completedFuture(null);
    }
    stateLock.lock();
    try {
      if (closed) {
        return CompletableFuture.failedFuture(new LogClosedException(name));
      }
      if (committedWatermark > position) {
        return CompletableFuture.completedFuture(null);
      }
      return watermarkWaiters.add(position);
    } finally {
      stateLock.unlock();
    }
  }

  /**
   * Offers the records recovered at open that lie at or after the flushed position and were not
   * aborted, in log order. Idempotent: every call offers the same records (the range is fixed at
   * open). Damage in that range ({@link #replayDamage()}) is handled as the recovery mode says:
   * POINT_IN_TIME stops before the first damage, SKIP_CORRUPTED goes past it (corrupt frames go to
   * {@link RecordConsumer#onCorruptFrame}, records of missing segments are simply absent).
   */
  public void replay(RecordConsumer consumer) {
    long stop = settings.recoveryMode() == RecoveryMode.SKIP_CORRUPTED ? Long.MAX_VALUE : replayStop();
    try (LogReader reader = reader(ReadRequest.fromPosition(replayStart).endBefore(replayEnd))) {
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

  /** Where crash replay starts: the flushed position read at open. */
  public long replayStart() {
    return replayStart;
  }

  /** Where crash replay ends: the end of what recovery found at open. */
  public long replayEnd() {
    return replayEnd;
  }

  /** The damage found at open that replay would cross ({@link #replayStart()} on), in log order. */
  public List<LogDamage> replayDamage() {
    List<LogDamage> out = new ArrayList<>();
    for (LogDamage d : damage) {
      if (d.resume() > replayStart) {
        out.add(d);
      }
    }
    return out;
  }

  /** Where point-in-time replay stops: the first damage at or after the replay start, else {@link Long#MAX_VALUE}. */
  public long replayStop() {
    for (LogDamage d : damage) {
      if (d.resume() > replayStart) {
        return Math.max(d.position(), replayStart);
      }
    }
    return Long.MAX_VALUE;
  }

  /** Every damage found at open (other than a torn tail), in log order. */
  public List<LogDamage> damage() {
    return damage;
  }

  /** Entries of the log directory that are not the log's (left alone), found at open. */
  public List<Path> foreignEntries() {
    return foreignEntries;
  }

  /**
   * Marks recovered records as abandoned: their data was not restored by replay (they lie past a
   * point-in-time stop), so readers and later replays must never return them. Written as abort
   * markers (forced under {@link Durability#FSYNC}). For the replay at open, before any append.
   *
   * @throws IllegalArgumentException if a position is not a recovered record
   */
  public void abandon(List<Long> positions) {
    long lastMarker = -1;
    for (long position : positions) {
      if (position >= replayEnd || isAborted(position)) {
        throw new IllegalArgumentException("position " + LogPosition.toString(position)
            + " is not a recovered record of transaction log '" + name + "'");
      }
      ByteBuffer frame = FrameEncoder.get().abort(clock.millis(), position);
      if (leaderless != null) {
        checkOpen();
        lastMarker = leaderless.append(frame, null);
        leaderless.complete(lastMarker);
        stateLock.lock();
        try {
          aborted.add(position);
        } finally {
          stateLock.unlock();
        }
        publishLeaderless(null);
        continue;
      }
      long frameBytes = frame.remaining();
      appendLock.lock();
      try {
        checkWritable();
        Segment segment = segmentFor(frameBytes);
        long offset = segment.end;
        lastMarker = LogPosition.of(segment.number, offset);
        write(segment, frame, offset);
        segment.end = offset + frameBytes;
        bytesWritten += frameBytes;
        List<CompletableFuture<Void>> ready;
        stateLock.lock();
        try {
          writtenEnd = LogPosition.of(segment.number, offset + frameBytes);
          aborted.add(position);
          ready = advanceWatermark();
        } finally {
          stateLock.unlock();
        }
        completeAll(ready);
      } finally {
        appendLock.unlock();
      }
    }
    if (lastMarker >= 0 && committer != null) {
      awaitDurable(lastMarker);
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
    long target = Math.min(position, committedWatermark);
    synchronized (flushedFileLock) {
      if (target <= flushedPosition || closed) {
        return;
      }
      try {
        flushedFile.write(target);
      } catch (IOException e) {
        throw new LogIOException("cannot persist the flushed position of transaction log '" + name
            + "' (it stays at " + LogPosition.toString(flushedPosition) + ")", e);
      }
      flushedPosition = target;
    }
  }

  // ---------------------------------------------------------------- retention

  /**
   * Deletes the oldest segments whose newest record is older than {@code olderThan}, except any
   * segment holding records at or above the flushed position (replay may need them) and the
   * active segment.
   */
  public PurgeResult purge(Instant olderThan) {
    long cutoff = olderThan.toEpochMilli();
    long flushed = flushedPosition;
    List<Segment> doomed = new ArrayList<>();
    int keptUnflushed = 0;
    boolean activeKept = false;
    appendLock.lock();
    try {
      checkOpen();
      for (Segment s : segments.values()) {
        if (s.newestMillis() >= cutoff) {
          break;
        }
        if (s == active || !s.sealed) {
          activeKept = true;
          break;
        }
        if (LogPosition.of(s.number, s.end) > flushed) {
          keptUnflushed++;
          continue;
        }
        if (keptUnflushed == 0) {
          doomed.add(s);
        }
      }
      for (Segment s : doomed) {
        segments.remove(s.number);
        s.deleted = true;
      }
    } finally {
      appendLock.unlock();
    }
    long bytes = 0;
    for (Segment s : doomed) {
      bytes += s.end;
      try {
        s.close();
        fs.delete(s.path);
      } catch (IOException e) {
        throw new LogIOException("cannot delete segment " + s.path, e);
      }
    }
    Map.Entry<Long, Segment> first = segments.firstEntry();
    if (first != null) {
      aborted.dropBelow(LogPosition.of(first.getKey(), 0));
    }
    return new PurgeResult(doomed.size(), bytes, keptUnflushed, activeKept);
  }

  /** {@link #purge} of what is older than the retention setting. */
  public PurgeResult purgeExpired() {
    return purge(clock.instant().minus(settings.retention()));
  }

  // ---------------------------------------------------------------- stats and lifecycle

  /** A snapshot of the log's counters. */
  public LogStats stats() {
    int files = 0;
    long totalBytes = 0;
    int keptUnflushed = 0;
    long flushed = flushedPosition;
    for (Segment s : segments.values()) {
      files++;
      totalBytes += s.end;
      if (s.sealed && LogPosition.of(s.number, s.end) > flushed) {
        keptUnflushed++;
      }
    }
    int unfinished;
    int lag;
    long records = recordsWritten;
    long bytes = bytesWritten;
    if (leaderless != null) {
      lag = leaderless.lag();
      unfinished = leaderless.unfinished();
      records = leaderless.recordsClaimed();
      bytes = leaderless.bytesClaimed();
    } else {
      stateLock.lock();
      try {
        unfinished = uncommitted.unfinished();
        lag = uncommitted.size();
      } finally {
        stateLock.unlock();
      }
    }
    long fsyncs = committer == null ? 0 : committer.forces();
    double perFsync = fsyncs == 0 ? 0 : (double) committer.recordsForced() / fsyncs;
    return new LogStats(files, totalBytes, records, bytes, recordsRecovered,
        unfinished, lag, aborted.size(), recoveredCorruptFrames.size(), fsyncs, perFsync,
        keptUnflushed, committedWatermark, flushedPosition,
        committer == null ? 0 : committer.durableEnd());
  }

  /** The corrupt frames recovery found at open (each one lost record). */
  public List<CorruptFrame> corruptFrames() {
    return recoveredCorruptFrames;
  }

  /** Bytes of torn tail that recovery cut off at open. */
  public long tornBytesTruncated() {
    return tornBytesTruncated;
  }

  /**
   * Closes the log; idempotent. New appends fail with {@link LogClosedException}; under FSYNC a
   * final force runs and pending {@link #whenDurable} futures complete (or fail with the force's
   * error); {@link #whenCommittedBeyond} futures fail with {@link LogClosedException}.
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
    IOException closeError = null;
    TransactionLogException notDurable = null;
    try {
      appendLock.lock();
      try {
        closed = true;
      } finally {
        appendLock.unlock();
      }
      if (leaderless != null) {
        leaderless.close();
      }
      if (committer != null) {
        committer.close(); // a last force for everything written
        notDurable = committer.failure();
      } else if (leaderless != null) {
        try {
          // A clean close leaves every claimed record in the file.
          leaderless.writeThrough(leaderless.claimedEnd());
        } catch (TransactionLogException e) {
          notDurable = e; // what reached the file is what recovery will find
        }
      }
      if (notDurable == null) {
        notDurable = failure;
      }
      List<CompletableFuture<Void>> waiting;
      stateLock.lock();
      try {
        waiting = watermarkWaiters.takeAll();
      } finally {
        stateLock.unlock();
      }
      LogClosedException closedError = new LogClosedException(name);
      waiting.forEach(f -> f.completeExceptionally(closedError));
      synchronized (flushedFileLock) {
        // Waits for a flushed-position write in progress.
      }
      for (Segment s : segments.values()) {
        try {
          s.close();
        } catch (IOException e) {
          closeError = e;
        }
      }
    } finally {
      release(directoryLock);
      OPEN_DIRECTORIES.remove(directory);
    }
    if (notDurable != null) {
      throw new LogFailedException(name, "making every appended record durable at close", notDurable);
    }
    if (closeError != null) {
      throw new LogIOException("closing transaction log '" + name + "' failed", closeError);
    }
  }

  public boolean isClosed() {
    return closed;
  }

  @Override
  public String toString() {
    return "TransactionLog[" + name + " at " + directory + ", watermark "
        + LogPosition.toString(committedWatermark) + "]";
  }

  // ---------------------------------------------------------------- internals

  /**
   * The end of what a reader that includes uncommitted records may read. Leaderless: records
   * still in a buffer are written out first (no fsync), so such a reader sees every append.
   */
  long writtenEnd() {
    if (leaderless != null) {
      leaderless.writeThrough(leaderless.claimedEnd());
      return leaderless.writtenEnd();
    }
    return writtenEnd;
  }

  /** The recorded (committed prefix, sequence) pairs not yet taken by a flush, oldest first. */
  long[][] flushCorrelationPairs() {
    stateLock.lock();
    try {
      return correlation.pairs();
    } finally {
      stateLock.unlock();
    }
  }

  boolean isAborted(long position) {
    return aborted.contains(position);
  }

  Segment segmentAtOrAfter(long number) {
    Map.Entry<Long, Segment> e = segments.ceilingEntry(number);
    return e == null ? null : e.getValue();
  }

  /** The latest segment whose first record is older than {@code timestamp}, else the oldest. */
  Segment segmentForTimestamp(long timestamp) {
    for (Segment s : segments.descendingMap().values()) {
      long first = s.firstTimestamp;
      if (first != Long.MIN_VALUE && first < timestamp) {
        return s;
      }
    }
    Map.Entry<Long, Segment> e = segments.firstEntry();
    return e == null ? null : e.getValue();
  }

  void checkOpen() {
    if (closed) {
      throw new LogClosedException(name);
    }
  }

  private void checkWritable() {
    checkOpen();
    if (leaderless != null && leaderless.failure() != null) {
      throw new LogFailedException(leaderless.failure());
    }
    TransactionLogException failed = failure;
    if (failed == null && committer != null) {
      failed = committer.failure();
    }
    if (failed != null) {
      throw new LogIOException("transaction log '" + name + "' refuses appends after an earlier"
          + " I/O failure; reopen it to recover", failed);
    }
  }

  private void requireUncommitted(long position) {
    if (!uncommitted.contains(position)) {
      throw new IllegalStateException("position " + LogPosition.toString(position)
          + " is not awaiting finish in transaction log '" + name
          + "': it was never appended, or it already finished or aborted");
    }
  }

  /** Under the state lock: publishes the new watermark and takes the waiters it releases. */
  private List<CompletableFuture<Void>> advanceWatermark() {
    long watermark = uncommitted.watermark(writtenEnd);
    if (watermark <= committedWatermark) {
      return List.of();
    }
    committedWatermark = watermark;
    return watermarkWaiters.isEmpty() ? List.of() : watermarkWaiters.takeBelow(watermark);
  }

  private static void completeAll(List<CompletableFuture<Void>> futures) {
    for (int i = 0, n = futures.size(); i < n; i++) {
      futures.get(i).complete(null);
    }
  }

  /** Under the append lock: the segment the next frame goes to, rotating if it is full or old. */
  private Segment segmentFor(long frameBytes) {
    Segment current = active;
    if (current != null && !needsRotation(current, current.end, frameBytes)) {
      return current;
    }
    return rotate(current);
  }

  private Segment rotate(Segment previous) {
    boolean fsync = settings.durability() == Durability.FSYNC;
    if (previous != null && fsync) {
      try {
        // The force thread only forces the active segment, so the old one is forced here.
        previous.force();
      } catch (IOException e) {
        failure = new LogIOException("fsync of segment " + previous.path + " failed", e);
        throw failure;
      }
    }
    Segment next;
    try {
      // Chain the new segment to the one it follows, so recovery notices if that one goes missing.
      next = createSegment(previous != null && previous.number == nextSegmentNumber - 1
          ? (int) previous.end : SegmentHeader.NO_PREDECESSOR);
    } catch (IOException e) {
      throw new LogIOException("cannot create segment " + directory.resolve(
          Segment.fileName(nextSegmentNumber)) + " of transaction log '" + name + "'", e);
    }
    if (previous != null) {
      previous.sealed = true;
    }
    active = next;
    return next;
  }

  /**
   * Creates, registers and returns the next segment file (header written, forced under FSYNC).
   *
   * @param previousEnd where the previous segment ends, for the header's chain
   */
  private Segment createSegment(int previousEnd) throws IOException {
    boolean fsync = settings.durability() == Durability.FSYNC;
    long number = nextSegmentNumber;
    Path path = directory.resolve(Segment.fileName(number));
    long created = clock.millis();
    LogFile file = null;
    try {
      file = fs.create(path);
      file.write(new SegmentHeader(number, created, previousEnd).encode(), 0);
      if (fsync) {
        file.force();
        fs.forceDirectory(directory);
      }
    } catch (IOException e) {
      closeQuietly(file);
      try {
        fs.delete(path);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    Segment next = new Segment(number, path, created, file, SegmentHeader.BYTES);
    segments.put(number, next);
    nextSegmentNumber = number + 1;
    return next;
  }

  /** Whether a frame of {@code frameBytes} at {@code offset} of {@code s} goes to a new segment. */
  private boolean needsRotation(Segment s, long offset, long frameBytes) {
    boolean empty = offset <= SegmentHeader.BYTES;
    boolean full = offset + frameBytes > settings.maxSegmentBytes();
    boolean old = clock.millis() - s.createdMillis >= maxSegmentAgeMillis;
    return !empty && (full || old);
  }

  /** The segment operations of the leaderless appender (it calls them under its sync lock). */
  private final class LeaderlessSegments implements LeaderlessAppender.Segments {
    @Override
    public boolean needsSwitch(Segment s, long offset, long frameBytes) {
      return needsRotation(s, offset, frameBytes);
    }

    @Override
    public Segment openNext(Segment previous) throws IOException {
      // Appends may still land in the previous segment until the switch: its end is chained in switched().
      return createSegment(previous == null ? SegmentHeader.NO_PREDECESSOR : SegmentHeader.UNKNOWN_PREDECESSOR);
    }

    @Override
    public void switched(Segment previous, Segment next) throws IOException {
      if (previous != null) {
        previous.sealed = true;
        int previousEnd = previous.number == next.number - 1 ? (int) previous.end : SegmentHeader.NO_PREDECESSOR;
        // Rewritten before anything of the new segment is written or forced: the next force of
        // the segment carries the header with it.
        next.file().write(new SegmentHeader(next.number, next.createdMillis, previousEnd).encode(), 0);
      }
      active = next;
    }

    @Override
    public Segment segment(long number) {
      return segments.get(number);
    }
  }

  private void write(Segment segment, ByteBuffer frame, long offset) {
    try {
      segment.file().write(frame, offset);
    } catch (IOException e) {
      try {
        // Remove whatever part of the frame made it, so the next append starts clean.
        segment.file().truncate(offset);
      } catch (IOException truncateError) {
        e.addSuppressed(truncateError);
        failure = new LogIOException("append to transaction log '" + name + "' failed and the"
            + " partial frame could not be removed; reopen the log to recover", e);
        throw failure;
      }
      throw new LogIOException("append to transaction log '" + name + "' failed at "
          + LogPosition.toString(LogPosition.of(segment.number, offset))
          + "; nothing was appended and the log is still usable", e);
    }
  }

  private static void closeQuietly(LogFile file) {
    if (file != null) {
      try {
        file.close();
      } catch (IOException ignored) {
        // Already failing; the original error is what matters.
      }
    }
  }
}
