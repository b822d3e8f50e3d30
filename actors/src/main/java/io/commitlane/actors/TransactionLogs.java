package io.commitlane.actors;

import io.commitlane.storage.CommitHook;
import io.commitlane.storage.Database;
import io.commitlane.storage.PendingCommit;
import io.commitlane.storage.StoreDroppedException;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.MonotonicClock;
import io.commitlane.txlog.TransactionLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The named transaction logs of one database ({@code <db>/txlog/<name>/}) and the commit hook
 * that writes them. The record of a commit is appended in {@link #beforeWrite}: after its
 * validation passed, under its locks, before its RocksDB write, so log order agrees with commit
 * order on every key. After the write returns, {@link #afterWrite} moves the log's committed
 * watermark and pairs it with RocksDB's sequence (flush correlation); a commit that fails after
 * its append is marked aborted, so readers and replay skip it.
 *
 * <p>Appends and sequence sampling are serialized by the log's own locks on the committing
 * thread rather than through an actor's mailbox: the append must happen under the commit's
 * bucket locks, and a thread hand-off there would hold those locks for the length of a wake-up.
 */
final class TransactionLogs implements CommitHook, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TransactionLogs.class);
  static final String DIRECTORY = "txlog";

  private final Database db;
  private final Path root;
  private final LogSettings settings;
  private final boolean replay;
  private final Map<String, TransactionLog> logs = new ConcurrentHashMap<>();
  private final MonotonicClock clock = new MonotonicClock();
  /** What replay applied and skipped, per log. */
  private final Map<String, ReplayStats> replayed = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private TransactionLogs(Database db, LogSettings settings, boolean replay) {
    this.db = db;
    this.root = db.path().resolve(DIRECTORY);
    this.settings = settings;
    this.replay = replay;
  }

  /**
   * Open every log the database has, replay into RocksDB whatever the last flush did not hold
   * (in log order), and install the commit hook. Run before any commit reaches the database.
   */
  static TransactionLogs open(Database db, LogSettings settings, boolean replay) {
    TransactionLogs logs = new TransactionLogs(db, settings, replay);
    if (Files.isDirectory(logs.root)) {
      try (Stream<Path> dirs = Files.list(logs.root)) {
        for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
          TransactionLog log = logs.logFor(dir.getFileName().toString());
          logs.clock.advancePast(log.newestRecoveredTimestamp());
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list transaction logs under " + logs.root, e);
      }
    }
    logs.replayAll();
    return logs;
  }

  Map<String, ReplayStats> replayed() {
    return Map.copyOf(replayed);
  }

  private void replayAll() {
    for (TransactionLog log : logs.values()) {
      long[] n = {0, 0};
      log.replay(record -> {
        if (record.writes() != null) {
          n[1] += apply(record.writes());
          n[0]++;
        }
      });
      replayed.put(log.name(), new ReplayStats(n[0], n[1]));
      if (n[0] > 0) {
        LOG.info("replayed {} transaction(s) from log {} of {}", n[0], log.name(), db.path());
      }
      if (n[1] > 0) {
        LOG.info("skipped {} write(s) of log {} of {} to stores dropped before the crash", n[1], log.name(), db.path());
      }
    }
  }

  /**
   * Apply one record's writes, leaving out writes to stores dropped before the crash; returns how
   * many were left out. A store dropped while this runs (another handle of the path) is left out
   * too, on the next round: each round has one store fewer, so this ends.
   */
  private int apply(ByteBuffer writes) {
    while (true) {
      WriteSetCodec.Decoded d = WriteSetCodec.decode(writes, db);
      try {
        db.write(d.batch());
        return d.skipped();
      } catch (StoreDroppedException e) {
        // decode again: the dropped store is no longer found
      }
    }
  }

  TransactionLog logFor(String name) {
    TransactionLog log = logs.get(name);
    if (log != null) {
      return log;
    }
    if (!name.matches("[A-Za-z0-9._-]{1,128}") || name.startsWith(".")) {
      throw new IllegalArgumentException("log name must be 1..128 of [A-Za-z0-9._-], not starting with '.': " + name);
    }
    synchronized (this) {
      if (closed) {
        throw new io.commitlane.storage.DatabaseClosedException(db.path());
      }
      return logs.computeIfAbsent(name, n -> TransactionLog.open(root.resolve(n), settings.toBuilder().name(n).build()));
    }
  }

  /** Each open log's stats, by name. */
  Map<String, io.commitlane.txlog.LogStats> stats() {
    Map<String, io.commitlane.txlog.LogStats> out = new java.util.TreeMap<>();
    logs.forEach((name, log) -> out.put(name, log.stats()));
    return out;
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
    long ts = clock.next();
    long position = log.append(c.transactionId(), ts, entries, replay ? WriteSetCodec.encode(c) : null);
    c.attach(new LogAppend(name, position, ts, log));
  }

  @Override
  public void afterWrite(PendingCommit c) {
    if (c.attachment() instanceof LogAppend a) {
      // Sampled inside finish(), after the position left the uncommitted set (seed 000's race).
      a.store.finish(a.position(), db::latestSequenceNumber);
    }
  }

  @Override
  public void aborted(PendingCommit c, Throwable cause) {
    if (c.attachment() instanceof LogAppend a) {
      a.store.abort(a.position());
    }
  }

  /** Completes when the record is as durable as the log's durability promises (fsync: synced). */
  static CompletableFuture<Void> whenDurable(Object attachment) {
    if (attachment instanceof LogAppend a && a.store.settings().durability() == Durability.FSYNC) {
      return a.store.whenDurable(a.position());
    }
    return null;
  }

  /** RocksDB flushed everything up to {@code sequence}: record what replay no longer needs. */
  void onFlushCompleted(long sequence) {
    for (TransactionLog log : logs.values()) {
      try {
        log.onFlushCompleted(sequence);
      } catch (RuntimeException e) {
        LOG.error("recording flush at sequence {} in log {} failed", sequence, log.name(), e);
      }
    }
  }

  void purgeExpired() {
    for (TransactionLog log : logs.values()) {
      try {
        log.purgeExpired();
      } catch (RuntimeException e) {
        LOG.error("purging log {} failed", log.name(), e);
      }
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (TransactionLog log : logs.values()) {
      try {
        log.close();
      } catch (RuntimeException e) {
        LOG.error("closing log {} failed", log.name(), e);
      }
    }
  }
}
