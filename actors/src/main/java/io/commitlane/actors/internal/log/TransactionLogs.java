package io.commitlane.actors.internal.log;

import io.commitlane.actors.ReplayStats;
import io.commitlane.actors.UnknownLogException;
import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.actors.internal.protocol.RequestLedger;
import io.commitlane.storage.CapturedLog;
import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.LogCapture;
import io.commitlane.storage.NotDurableException;
import io.commitlane.storage.ReadOnlyDatabaseException;
import io.commitlane.storage.internal.commit.LogRecordRef;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.LogStats;
import io.commitlane.txlog.internal.append.LogWriterHost;
import io.commitlane.txlog.MonotonicClock;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.TransactionLogException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The named transaction logs of one database ({@code <db>/txlog/<name>/}) and the commit hook
 * that writes them. The record of a commit is appended in {@link #beforeWrite}: after its
 * validation passed, under its locks, before its RocksDB write, so log order agrees with commit
 * order on every key; its timestamp comes from the database's one clock at that moment, which
 * orders records across logs too. The same write carries a marker ({@link ReplayMarkers}), so
 * RocksDB holds the marker exactly when it holds the data. After the write returns, {@link
 * #afterWrite} moves the log's committed watermark and pairs it with RocksDB's sequence (flush
 * correlation); a commit that fails after its append is marked aborted, so readers and replay
 * skip it (or, if the abort marker cannot be written, dead: {@link DeadRecords}).
 *
 * <p>Opening replays, merged across logs ({@link CrashReplay}), what RocksDB does not hold. A clean
 * close flushes RocksDB and records every log as flushed, so the next open replays nothing.
 *
 * <p>How appends and sequence sampling are ordered depends on {@code txlog.append}. {@code
 * serialized} and {@code leaderless}: by the log's own locks on the committing thread, which
 * writes (or copies) the record under the commit's locks and finishes it after the write. {@code
 * actor}: the committing thread only queues the record under the commit's locks and queues its
 * finish after the write; the transaction-log actor is the logs' writer ({@link #hostWriters}):
 * it writes each batch, forces it for {@code fsync}, finishes it, samples RocksDB's sequence and
 * completes the commits' acknowledgements, and flush events reach the same actor, so sampling
 * after removal holds by its mailbox order.
 */
public final class TransactionLogs implements CommitHook, LogCapture, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TransactionLogs.class);
  public static final String DIRECTORY = "txlog";
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");

  private final Database db;
  private final Path root;
  private final LogSettings settings;
  private final boolean replay;
  /** The database's request ids: a commit's request record goes into its log record. */
  private final RequestLedger requests;
  private final Faults faults;
  private final Map<String, TransactionLog> logs = new ConcurrentHashMap<>();
  private final MonotonicClock clock = new MonotonicClock();
  /** Runs the writers of {@code actor}-mode logs (the transaction-log actor), or null: each log's own thread. */
  private LogWriterHost writerHost;
  /** What replay did, per log, when the database was opened. */
  private volatile Map<String, ReplayStats> replayed = Map.of();
  private volatile boolean closed;
  /** Guarded by this: checkpoints and backups copying the logs now; flushed positions stay put meanwhile. */
  private int holds;
  /** Guarded by this: the largest flushed sequence seen while held, applied when the last hold ends; -1 if none. */
  private long deferredFlush = -1;
  /** Removes this from the database as its log capture. */
  private Database.Registration captureRegistration;

  private TransactionLogs(Database db, LogSettings settings, boolean replay, RequestLedger requests, Faults faults) {
    this.db = db;
    this.faults = faults;
    this.requests = requests;
    this.root = db.path().resolve(DIRECTORY);
    this.settings = settings;
    this.replay = replay;
  }

  /**
   * Open every log the database has, replay into RocksDB what it does not hold, and install the
   * commit hook. Run before any commit reaches the database. On failure every log opened here is
   * closed again.
   */
  public static TransactionLogs open(Database db, LogSettings settings, boolean replay, RequestLedger requests) {
    return open(db, settings, replay, requests, new Faults());
  }

  public static TransactionLogs open(Database db, LogSettings settings, boolean replay, RequestLedger requests, Faults faults) {
    TransactionLogs logs = new TransactionLogs(db, settings, replay, requests, faults);
    try {
      for (String name : logs.existingLogNames()) {
        TransactionLog log = logs.logFor(name);
        logs.clock.advancePast(log.newestRecoveredTimestamp());
      }
      logs.replayed = Map.copyOf(CrashReplay.run(db, logs.logs.values(), requests));
      logs.captureRegistration = db.setLogCapture(logs);
      return logs;
    } catch (RuntimeException | Error e) {
      logs.closeLogs();
      throw e;
    }
  }

  /**
   * The logs of a database opened read-only: none is opened (opening one may truncate a torn
   * tail), nothing is replayed, and {@link #logFor} refuses with {@link ReadOnlyDatabaseException}.
   */
  public static TransactionLogs readOnly(Database db, LogSettings settings, RequestLedger requests, Faults faults) {
    return new TransactionLogs(db, settings, false, requests, faults);
  }

  /**
   * The logs under {@code txlog/}. Refuses a {@code txlog} that is not a directory and a log name
   * that is a file (the database would lose its logs silently); skips, with a warning, entries
   * that cannot be logs (for example {@code lost+found}).
   */
  private List<String> existingLogNames() {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    if (!Files.isDirectory(root)) {
      throw new TransactionLogException(root + " is not a directory, so the transaction logs of " + db.path()
          + " cannot be read; move it away (it is not commitlane's) and open again");
    }
    List<String> names = new ArrayList<>();
    try (Stream<Path> entries = Files.list(root)) {
      for (Path p : entries.sorted().toList()) {
        String name = p.getFileName().toString();
        if (!NAME.matcher(name).matches()) {
          LOG.warn("{} is not a transaction log of {} (not a log name); it is left alone", p, db.path());
        } else if (!Files.isDirectory(p)) {
          throw new TransactionLogException(p + " should be the directory of transaction log '" + name + "' of "
              + db.path() + " but is a file; move it away and open again");
        } else {
          names.add(name);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list transaction logs under " + root, e);
    }
    return names;
  }

  /** What replay did with each log at open (an entry per log that existed then). */
  public Map<String, ReplayStats> replayed() {
    return replayed;
  }

  /**
   * The log {@code name} if the database has it: reads use this, and create nothing. Every log on
   * disk was opened at open, and a new one is created only by {@link #logFor}, so the open logs
   * are the database's logs.
   */
  public TransactionLog existing(String name) {
    if (db.isReadOnly()) {
      throw new ReadOnlyDatabaseException(db.path(), "open transaction log '" + name + "'");
    }
    TransactionLog log = logs.get(name);
    if (log != null) {
      return log;
    }
    if (closed) {
      throw new DatabaseClosedException(db.path());
    }
    throw new UnknownLogException(name, db.path(), new java.util.TreeSet<>(logs.keySet()));
  }

  public TransactionLog logFor(String name) {
    TransactionLog log = logs.get(name);
    if (log != null) {
      return log;
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("log name must be 1..128 of [A-Za-z0-9._-], not starting with '.': " + name);
    }
    if (db.isReadOnly()) {
      throw new ReadOnlyDatabaseException(db.path(), "open transaction log '" + name + "'");
    }
    synchronized (this) {
      if (closed) {
        throw new DatabaseClosedException(db.path());
      }
      return logs.computeIfAbsent(name, n -> {
        TransactionLog opened = TransactionLog.open(root.resolve(n), settings.withName(n));
        if (writerHost != null) {
          opened.hostWriter(writerHost);
        }
        return opened;
      });
    }
  }

  /**
   * With {@code txlog.append = actor}: {@code host} runs the writer of every log, present and
   * future, unless another host already does (an equal host, the same actor restarted, takes it
   * again). Returns whether it took the role.
   */
  synchronized boolean hostWriters(LogWriterHost host) {
    if (settings.appendMode() != AppendMode.ACTOR || (writerHost != null && !writerHost.equals(host)) || closed) {
      return false;
    }
    writerHost = host;
    logs.values().forEach(log -> log.hostWriter(host));
    return true;
  }

  /**
   * {@code host} stops: every log's writer goes back to the log's own thread (a wake-up the host
   * took but will not run goes there too). Call it from the host's thread, after its last turn.
   */
  synchronized void releaseWriters(LogWriterHost host) {
    if (host == null || !host.equals(writerHost)) {
      return;
    }
    writerHost = null;
    logs.values().forEach(log -> log.hostWriter(null));
  }

  /** Whether the logs were closed (the database is being released). */
  public boolean isClosed() {
    return closed;
  }

  /** Each open log's stats, by name. */
  public Map<String, LogStats> stats() {
    Map<String, LogStats> out = new TreeMap<>();
    logs.forEach((name, log) -> out.put(name, log.stats()));
    return out;
  }

  @Override
  public boolean writesLogs() {
    return true;
  }

  @Override
  public void beforeWrite(PendingCommit c) {
    String name = c.logName();
    if (name == null) {
      return;
    }
    TransactionLog log = logFor(name);
    List<ByteBuffer> entries = new ArrayList<>(c.logEntries().size());
    for (byte[] e : c.logEntries()) {
      entries.add(ByteBuffer.wrap(e));
    }
    // Encoded before the marker is added: the record holds the transaction's writes (and its request record) only.
    ByteBuffer writes = replay ? WriteSetCodec.encode(c, requests == null ? null : requests.logged(c)) : null;
    TransactionLog.Appended a = log.append(c.transactionId(), clock, 0, entries, writes);
    if (replay) {
      ReplayMarkers.mark(c, name, a.position());
    }
    c.attach(new LogRecordRef(name, a.position(), a.timestamp()));
  }

  @Override
  public void afterWrite(PendingCommit c) {
    LogRecordRef r = c.logRecord();
    if (r == null) {
      return;
    }
    TransactionLog log = logs.get(r.log()); // beforeWrite opened it; logs are never removed
    if (log.settings().appendMode() == AppendMode.ACTOR) {
      // Queued for the log's writer, which samples after removal; the acknowledgement waits for it.
      long txn = c.transactionId();
      r.acknowledgeWhen(log.finishAsync(r.position(), db::latestSequenceNumber).exceptionally(e -> {
        throw new NotDurableException(txn, "its record in transaction log '" + r.log() + "' could not be written"
            + (log.settings().durability() == Durability.FSYNC ? " and synced" : ""),
            e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
      }));
    } else {
      try {
        // Sampled inside finish(), after the position left the uncommitted set, so a flush at
        // that sequence never claims an earlier record that finished later.
        log.finish(r.position(), db::latestSequenceNumber);
      } catch (TransactionLogException e) {
        throw new NotDurableException(c.transactionId(), "its record in transaction log '" + r.log()
            + "' could not be written", e);
      }
    }
  }

  /**
   * Aborts the record; if the log cannot write the abort marker, the record is made dead instead
   * ({@link DeadRecords}: for replay and readers at every later open), or the commit's outcome is
   * reported unknown.
   */
  @Override
  public void aborted(PendingCommit c, Throwable cause) {
    LogRecordRef r = c.logRecord();
    if (r != null) {
      TransactionLog log = logs.get(r.log());
      try {
        log.abort(r.position());
      } catch (RuntimeException abortFailure) {
        DeadRecords.bury(db, faults, replay, c, r, log, cause, abortFailure);
      }
    }
  }

  /**
   * Completes when the commit's record is as durable as the log's durability promises (fsync:
   * synced; {@code actor}: also finished and in the file), or null if there is nothing to wait
   * for. The commit's RocksDB write has returned (readers may see it), so whatever keeps the
   * record from being durable (a failed fsync, a log closed first) fails it with {@link
   * NotDurableException}, never with an error that reads as "nothing was written".
   */
  public CompletableFuture<Void> whenDurable(CommitResult result) {
    LogRecordRef r = result.logRecord();
    if (r == null) {
      return null;
    }
    if (r.acknowledgement() != null) {
      return r.acknowledgement(); // already fails with NotDurableException (afterWrite)
    }
    TransactionLog log = logs.get(r.log());
    if (log.settings().durability() == Durability.FSYNC) {
      CompletableFuture<Void> synced = log.whenDurable(r.position());
      if (synced.isDone() && !synced.isCompletedExceptionally()) {
        return synced;
      }
      // No executor hop: the mapping only wraps the error, on the thread that failed the future.
      return synced.exceptionally(e -> {
        throw notDurable(result.transactionId(), r, e);
      });
    }
    return null;
  }

  private static NotDurableException notDurable(long txn, LogRecordRef r, Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return new NotDurableException(txn, "its record in transaction log '" + r.log() + "' could not be synced", cause);
  }

  /**
   * RocksDB flushed everything up to {@code sequence}: record what replay no longer needs. On the
   * log actor's thread; excluded with close, so a late flush event never writes through a closed
   * handle.
   */
  public synchronized void onFlushCompleted(long sequence) {
    if (closed) {
      return;
    }
    if (holds > 0) {
      deferredFlush = Math.max(deferredFlush, sequence); // a later, larger flush covers this one
      return;
    }
    for (TransactionLog log : logs.values()) {
      try {
        long before = log.flushedPosition();
        log.onFlushCompleted(sequence);
        if (replay && log.flushedPosition() > before) {
          ReplayMarkers.deleteBelow(db, log.name(), log.flushedPosition());
        }
      } catch (RuntimeException e) {
        LOG.error("recording flush at sequence {} in log {} failed", sequence, log.name(), e);
      }
    }
  }

  /**
   * Holds every log's flushed position (and the replay markers above it) until the hold closes,
   * so a checkpoint or backup can capture RocksDB's files and then copy the logs: the copies carry
   * flushed positions the captured data holds. Flush events seen meanwhile are applied at the end.
   */
  @Override
  public synchronized Hold hold() {
    if (closed) {
      throw new DatabaseClosedException(db.path());
    }
    holds++;
    Map<String, Long> flushedAtHold = new java.util.HashMap<>();
    logs.forEach((name, log) -> flushedAtHold.put(name, log.flushedPosition()));
    return new Hold() {
      private boolean released;

      @Override
      public List<CapturedLog> copyTo(Path txlogDirectory, Path earlier) {
        faults.beforeLogCopy();
        // One stamp for every log: each copy holds exactly the records stamped before it, so
        // together they hold a prefix of commit order. Taken after the data was captured, it is
        // above the stamp of every commit the data holds (a record is stamped before its write).
        long cut = clock.next();
        List<CapturedLog> out = new ArrayList<>();
        for (TransactionLog log : new TreeMap<>(logs).values()) {
          // A log first used after the hold has no flush recorded: its copy replays it whole.
          long flushed = flushedAtHold.getOrDefault(log.name(), log.flushedPosition());
          var copy = log.copyTo(txlogDirectory.resolve(log.name()), flushed, cut,
              earlier == null ? null : earlier.resolve(log.name()));
          out.add(new CapturedLog(log.name(), copy.flushedPosition(), copy.endPosition(), copy.bytes()));
        }
        return out;
      }

      @Override
      public void close() {
        synchronized (TransactionLogs.this) {
          if (released) {
            return;
          }
          released = true;
          if (--holds == 0 && deferredFlush >= 0) {
            long sequence = deferredFlush;
            deferredFlush = -1;
            onFlushCompleted(sequence);
          }
        }
      }
    };
  }

  synchronized void purgeExpired() {
    if (closed) {
      return;
    }
    for (TransactionLog log : logs.values()) {
      try {
        log.purgeExpired();
      } catch (RuntimeException e) {
        LOG.error("purging log {} failed", log.name(), e);
      }
    }
  }

  /**
   * Closes every log. Before that, a clean close makes RocksDB durable (a flush) and records
   * every log as flushed up to what had finished before the flush began, so the next open
   * replays nothing: replaying then could only put back values that are no longer the latest.
   *
   * @throws io.commitlane.storage.StorageException if the flush failed (the logs are closed
   *     anyway; the next open replays from where they were)
   * @throws TransactionLogException if a log could not make its records durable
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    if (captureRegistration != null) {
      captureRegistration.close();
    }
    RuntimeException failure = null;
    try {
      if (!logs.isEmpty()) {
        Map<TransactionLog, Long> finished = new java.util.HashMap<>();
        logs.values().forEach(log -> finished.put(log, log.committedWatermark()));
        db.flush();
        for (Map.Entry<TransactionLog, Long> e : finished.entrySet()) {
          e.getKey().markFlushedThrough(e.getValue());
          if (replay) {
            ReplayMarkers.deleteBelow(db, e.getKey().name(), e.getKey().flushedPosition());
          }
        }
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    RuntimeException closeFailure = closeLogs();
    failure = failure == null ? closeFailure : failure;
    if (failure != null) {
      throw failure;
    }
  }

  /** Closes every log; returns the first failure (each log is closed regardless). */
  private synchronized RuntimeException closeLogs() {
    closed = true;
    RuntimeException first = null;
    for (TransactionLog log : logs.values()) {
      try {
        log.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    return first;
  }
}
