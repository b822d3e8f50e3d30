package io.commitlane.actors.internal.log;

import io.commitlane.actors.ReplayStats;
import io.commitlane.actors.internal.events.LogReplayedEvent;
import io.commitlane.actors.internal.protocol.RequestLedger;
import io.commitlane.storage.Database;
import io.commitlane.storage.StoreDroppedException;
import io.commitlane.txlog.CorruptLogFrameException;
import io.commitlane.txlog.LogDamage;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import io.commitlane.txlog.RecoveryMode;
import io.commitlane.txlog.TransactionLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash replay at open, across every log of a database: brings RocksDB back to a state that
 * never goes back in time.
 *
 * <ol>
 *   <li>Each log offers its records from its flushed position on. A record whose marker RocksDB
 *       holds ({@link ReplayMarkers}) is already there and is never applied again: applying it
 *       could overwrite a newer value (an unlogged write, or a later commit RocksDB also holds).
 *   <li>The others are applied merged across logs in timestamp order. Timestamps come from one
 *       clock per database, taken under the commit's locks when the record's place is claimed,
 *       so two commits to one key are applied in the order they committed, whichever logs they
 *       used. A record RocksDB does not hold has no later commit to the same key that RocksDB
 *       holds (that commit's write came after it), so applying it overwrites nothing newer.
 *   <li>Damage (a missing or corrupt part of a log, not a torn tail) follows the recovery mode.
 *       Point-in-time: nothing at or after the first damage of a log is applied, nor anything of
 *       any log stamped after the last record before that damage (the lost records were stamped
 *       after it, so what is applied is a prefix of commit order); those records are abandoned
 *       (hidden from readers for good) and reported. Skip-corrupted applies every readable
 *       record. (Absolute-consistency never gets here: the log refuses to open.)
 *   <li>Then RocksDB is flushed and each log's flushed position moves to its end, so the next
 *       open replays nothing of this again.
 * </ol>
 *
 * <p>Every step is safe to stop at (a failure or a crash), because each applied record carries its
 * marker in the same RocksDB write as its data: a later open treats whatever RocksDB kept of this
 * replay as already durable, whichever logs had their flushed position recorded by then. Records
 * past damage are abandoned in every log before any flushed position moves, so a later open finds
 * the same damage and the same limit.
 *
 * <p>Before any of this, markers at or above each log's recovered end are invalidated ({@link
 * ReplayMarkers#invalidateFrom}): the log hands those positions out again; so are the markers and
 * floor of a log whose directory is gone. A record a dead marker names (a failed commit whose
 * abort marker could not be written, {@link DeadRecords}) is never applied, wherever it lies, and
 * is abandoned with the records past damage, so readers skip it as replay does. And a record
 * below the log's marker floor ({@link ReplayMarkers#floor}) counts as held: that is how a log
 * whose flushed-position file was lost (it then offers every record) replays only what RocksDB
 * misses.
 */
final class CrashReplay {
  private static final Logger LOG = LoggerFactory.getLogger(CrashReplay.class);

  private record Candidate(TransactionLog log, LogRecord record) {}

  private CrashReplay() {}

  /**
   * Replays {@code logs} into {@code db}, restoring the request ids the replayed commits recorded
   * into {@code requests}; returns what happened, per log name.
   */
  static Map<String, ReplayStats> run(Database db, Collection<TransactionLog> logs, RequestLedger requests) {
    Map<String, LogReplayedEvent> events = beginEvents(logs);
    Set<String> names = new HashSet<>();
    logs.forEach(log -> names.add(log.name()));
    boolean invalidated = ReplayMarkers.forgetOtherLogs(db, names);
    Map<TransactionLog, TreeSet<Long>> dead = new HashMap<>();
    for (TransactionLog log : logs) {
      invalidated |= ReplayMarkers.invalidateFrom(db, log.name(), log.replayEnd());
      TreeSet<Long> live = DeadRecords.settle(db, log);
      if (!live.isEmpty()) {
        dead.put(log, live);
      }
    }
    List<Candidate> toApply = new ArrayList<>();
    Map<TransactionLog, List<Long>> abandoned = new HashMap<>();
    Map<String, long[]> counts = new HashMap<>(); // applied, skipped writes, already durable, not replayed
    long stampLimit = Long.MAX_VALUE;
    Map<TransactionLog, List<LogRecord>> pending = new HashMap<>();
    for (TransactionLog log : logs) {
      counts.put(log.name(), new long[4]);
      if (log.replayStart() >= log.replayEnd()) {
        continue;
      }
      boolean pointInTime = log.settings().recoveryMode() == RecoveryMode.POINT_IN_TIME;
      long stop = pointInTime ? log.replayStop() : Long.MAX_VALUE;
      long lastStampBeforeStop = Long.MIN_VALUE;
      // Above the flushed position read at open, and above the floor: a lost flushed-position
      // file makes the log offer every record, and the floor still tells which RocksDB holds.
      long heldBelow = Math.max(log.replayStart(), ReplayMarkers.floor(db, log.name()));
      List<LogRecord> notHeld = new ArrayList<>();
      Set<Long> deadHere = dead.getOrDefault(log, new TreeSet<>());
      for (LogRecord r : read(log)) {
        if (r.position() < stop) {
          lastStampBeforeStop = Math.max(lastStampBeforeStop, r.timestamp());
        }
        if (deadHere.contains(r.position())) {
          continue; // its commit failed: never applied, and abandoned below, so readers agree
        }
        if (r.writes() == null) {
          continue; // logged without its writes (replay off then): nothing to restore
        }
        if (r.position() < heldBelow || ReplayMarkers.held(db, log.name(), r.position())) {
          counts.get(log.name())[2]++;
        } else {
          notHeld.add(r);
        }
      }
      if (stop != Long.MAX_VALUE) {
        // Everything lost in the damage was stamped after the last record before it; with no
        // record before it, nothing bounds the lost stamps from below and nothing is applied.
        stampLimit = Math.min(stampLimit, lastStampBeforeStop == Long.MIN_VALUE ? Long.MIN_VALUE : lastStampBeforeStop + 1);
        List<LogRecord> beforeStop = new ArrayList<>();
        for (LogRecord r : notHeld) {
          if (r.position() < stop) {
            beforeStop.add(r);
          } else {
            abandoned.computeIfAbsent(log, l -> new ArrayList<>()).add(r.position());
          }
        }
        notHeld = beforeStop;
      }
      pending.put(log, notHeld);
    }
    for (Map.Entry<TransactionLog, List<LogRecord>> e : pending.entrySet()) {
      for (LogRecord r : e.getValue()) {
        if (r.timestamp() < stampLimit) {
          toApply.add(new Candidate(e.getKey(), r));
        } else {
          abandoned.computeIfAbsent(e.getKey(), l -> new ArrayList<>()).add(r.position());
        }
      }
    }
    toApply.sort(Comparator.comparingLong((Candidate c) -> c.record().timestamp()));
    for (Candidate c : toApply) {
      long[] n = counts.get(c.log().name());
      n[1] += apply(db, c.log().name(), c.record().writes(), c.record().position(), requests);
      n[0]++;
    }
    boolean anything = invalidated || !dead.isEmpty();
    for (TransactionLog log : logs) {
      anything |= log.replayStart() < log.replayEnd();
    }
    if (anything) {
      // What was applied (and what RocksDB recovered) is made durable before the logs forget it,
      // and so is the invalidation of stale markers, before any append can reuse their positions.
      db.flush();
      for (TransactionLog log : logs) {
        List<Long> lost = abandoned.getOrDefault(log, List.of());
        TreeSet<Long> hidden = new TreeSet<>(lost);
        hidden.addAll(dead.getOrDefault(log, new TreeSet<>()));
        if (!hidden.isEmpty()) {
          log.abandon(new ArrayList<>(hidden));
          counts.get(log.name())[3] = lost.size();
        }
      }
      for (TransactionLog log : logs) {
        log.markFlushedThrough(Long.MAX_VALUE);
        ReplayMarkers.deleteBelow(db, log.name(), log.flushedPosition());
      }
    }
    Map<String, ReplayStats> stats = new HashMap<>();
    for (TransactionLog log : logs) {
      long[] n = counts.get(log.name());
      List<LogDamage> damage = log.replayDamage();
      ReplayStats s = new ReplayStats(n[0], n[1], n[2], n[3], damage);
      stats.put(log.name(), s);
      report(db, log, s);
      endEvent(events.get(log.name()), db, log, s);
    }
    return stats;
  }

  /** The log's records from its flushed position on, in log order (corrupt frames are in its damage list). */
  private static List<LogRecord> read(TransactionLog log) {
    List<LogRecord> out = new ArrayList<>();
    try (LogReader reader = log.reader(ReadRequest.fromPosition(log.replayStart()).endBefore(log.replayEnd()))) {
      while (true) {
        LogRecord r;
        try {
          r = reader.next();
        } catch (CorruptLogFrameException e) {
          continue;
        }
        if (r == null) {
          return out;
        }
        out.add(r);
      }
    }
  }

  /**
   * Apply one record's request record, then its writes with its marker in one RocksDB write,
   * leaving out writes to stores dropped before the crash; returns how many writes were left out.
   * The marker makes a later open skip the record over anything newer RocksDB holds by then; the
   * request record goes first, so RocksDB never holds the marker without it (writing it twice is
   * harmless). A store dropped while this runs (another handle of the path) is left out too, on
   * the next round: each round has one store fewer, so this ends.
   */
  private static int apply(Database db, String log, ByteBuffer writes, long position, RequestLedger requests) {
    while (true) {
      WriteSetCodec.Decoded d = WriteSetCodec.decode(writes, db);
      try {
        if (d.request() != null && requests != null) {
          requests.restore(d.request(), position);
        }
        db.write(d.batch(), ReplayMarkers.key(log, position), ReplayMarkers.value());
        return d.skipped();
      } catch (StoreDroppedException e) {
        // decode again: the dropped store is no longer found
      }
    }
  }

  /** One begun event per log when the event type is enabled (they share the replay's duration), else none. */
  private static Map<String, LogReplayedEvent> beginEvents(Collection<TransactionLog> logs) {
    if (!LogReplayedEvent.TYPE.isEnabled()) {
      return Map.of();
    }
    Map<String, LogReplayedEvent> events = new HashMap<>();
    for (TransactionLog log : logs) {
      LogReplayedEvent e = new LogReplayedEvent();
      e.begin();
      events.put(log.name(), e);
    }
    return events;
  }

  private static void endEvent(LogReplayedEvent e, Database db, TransactionLog log, ReplayStats s) {
    if (e == null) {
      return;
    }
    e.end();
    if (e.shouldCommit()) {
      e.database = db.path().toString();
      e.log = log.name();
      e.transactions = s.transactions();
      e.alreadyDurable = s.alreadyDurable();
      e.skippedWrites = s.skippedWrites();
      e.notReplayed = s.notReplayed();
      e.damage = s.damage().size();
      e.commit();
    }
  }

  private static void report(Database db, TransactionLog log, ReplayStats s) {
    if (s.transactions() > 0) {
      LOG.info("replayed {} transaction(s) from log {} of {}", s.transactions(), log.name(), db.path());
    }
    if (s.skippedWrites() > 0) {
      LOG.info("skipped {} write(s) of log {} of {} to stores dropped before the crash", s.skippedWrites(), log.name(),
          db.path());
    }
    for (LogDamage d : s.damage()) {
      LOG.warn("transaction log {} of {} is damaged at segment {} offset {}: {}", log.name(), db.path(),
          LogPosition.segment(d.position()), LogPosition.offset(d.position()), d);
    }
    if (s.notReplayed() > 0) {
      LOG.warn("{} acknowledged transaction(s) of log {} of {} come after damage and were not restored"
          + " (recovery point-in-time); the database is at the state before the damage", s.notReplayed(),
          log.name(), db.path());
    }
    for (var foreign : log.foreignEntries()) {
      LOG.warn("{} is not part of transaction log {} of {}; it is left alone", foreign, log.name(), db.path());
    }
  }
}
