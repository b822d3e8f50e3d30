package io.commitlane.actors.internal.log;

import io.commitlane.storage.Database;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.txlog.LogPosition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Marks, inside RocksDB, which logged commits RocksDB holds: each logged commit's write carries a
 * marker keyed by its log and record position, in commitlane's own column family, and so does
 * each record crash replay applies. RocksDB then holds a commit's marker exactly when it holds the
 * commit's data (after its own WAL recovery, or after a flush), so crash replay can tell a record
 * that must be applied from one that must not be applied again over newer data.
 *
 * <p>Markers below a log's flushed position are never needed again and are deleted (one range
 * tombstone per flush). Before that tombstone, the log's <em>floor</em> is raised to the same
 * position, in an earlier write: RocksDB never holds the tombstone without the floor, so for a
 * position at or above the floor RocksDB holds, a missing marker proves RocksDB misses the record,
 * and below it every record is held. That is what replay trusts when the flushed-position file is
 * lost.
 *
 * <p>Markers at or above the end of what a log recovered at open belong to records the log lost
 * (a torn or unsynced tail that RocksDB had already written and flushed). The log hands those
 * positions out again, so they are deleted, durably, before any new append ({@link
 * #invalidateFrom}); otherwise a stale marker would make a later crash skip the new commit at
 * that position as already durable.
 *
 * <p>A record of a failed commit whose abort marker the log could not write is made dead by a
 * <em>dead marker</em> ({@link #markDead}) instead: a key of its own, which flushes never delete,
 * so it keeps telling every later open that the record is dead, wherever the flushed position
 * is. Opening skips such a record in replay and writes its abort marker into the log, so readers
 * skip it too; the dead marker goes at a later open that finds the log already saying so ({@link
 * DeadRecords#settle}).
 *
 * <p>Keys: a marker is the log name's bytes, a 0 byte, the position as 8 big-endian bytes (log
 * names never contain a 0 byte, so one log's keys never fall in another's range); a floor is
 * {@code 0 'f'} and the log name, beside the request records ({@code 0 'i' ...}); a dead marker
 * is {@code 0 'd'}, the log name, a 0 byte and the position.
 */
public final class ReplayMarkers {
  private static final byte[] EMPTY = {};
  private static final byte FLOOR = 'f';
  private static final byte DEAD = 'd';

  private ReplayMarkers() {}

  /** In the commit's before-write step, after its record was appended at {@code position}. */
  static void mark(PendingCommit commit, String log, long position) {
    commit.addInternalWrite(key(log, position), EMPTY);
  }

  /** The marker of a record, as a value for a write that also carries its data. */
  static byte[] value() {
    return EMPTY;
  }

  /** Whether RocksDB holds the commit whose record is at {@code position} of {@code log}. */
  static boolean held(Database db, String log, long position) {
    return db.internalRecords().get(key(log, position)) != null;
  }

  /** Below this position RocksDB holds every record of {@code log}; {@link LogPosition#START} if none was recorded. */
  static long floor(Database db, String log) {
    byte[] v = db.internalRecords().get(floorKey(log));
    return v == null ? LogPosition.START : ByteBuffer.wrap(v).getLong();
  }

  /** Deletes the markers of {@code log} below {@code position} (its records there are flushed). */
  static void deleteBelow(Database db, String log, long position) {
    db.internalRecords().write(List.of(floorKey(log)), List.of(floorValue(position)));
    db.internalRecords().deleteRange(key(log, 0), key(log, position));
  }

  /**
   * Deletes the markers and dead markers of {@code log} at or above {@code end} (the end of what
   * it recovered) and lowers its floor to {@code end} if it is above; returns whether anything was
   * there, in which case the caller must flush before the log takes an append.
   */
  static boolean invalidateFrom(Database db, String log, long end) {
    boolean stale = any(db, key(log, end), endOf(log));
    boolean staleDead = any(db, deadKey(log, end), deadEndOf(log));
    boolean floorAbove = floor(db, log) > end;
    if (!stale && !staleDead && !floorAbove) {
      return false;
    }
    db.internalRecords().deleteRange(key(log, end), endOf(log));
    db.internalRecords().deleteRange(deadKey(log, end), deadEndOf(log));
    if (floorAbove) {
      db.internalRecords().write(List.of(floorKey(log)), List.of(floorValue(end)));
    }
    return true;
  }

  private static boolean any(Database db, byte[] from, byte[] to) {
    boolean[] found = {false};
    db.internalRecords().scan(from, to, (k, v) -> {
      found[0] = true;
      return false;
    });
    return found[0];
  }

  /**
   * Records, in RocksDB, that the record at {@code position} of {@code log} is dead: its commit
   * failed and its abort marker could not be written. Not durable until RocksDB flushes (or
   * writes its WAL).
   */
  static void markDead(Database db, String log, long position) {
    db.internalRecords().write(List.of(deadKey(log, position)), List.of(EMPTY));
  }

  /** The positions of {@code log} that dead markers name, in order. */
  static List<Long> dead(Database db, String log) {
    List<Long> out = new ArrayList<>();
    int at = log.getBytes(StandardCharsets.UTF_8).length + 3;
    db.internalRecords().scan(deadKey(log, 0), deadEndOf(log), (k, v) -> {
      out.add(ByteBuffer.wrap(k, at, 8).getLong());
      return true;
    });
    return out;
  }

  /** Deletes the dead markers of {@code log} at {@code positions}. */
  static void forgetDead(Database db, String log, List<Long> positions) {
    if (positions.isEmpty()) {
      return;
    }
    List<byte[]> keys = new ArrayList<>(positions.size());
    for (long p : positions) {
      keys.add(deadKey(log, p));
    }
    db.internalRecords().write(keys, Arrays.asList(new byte[keys.size()][]));
  }

  /**
   * Deletes the markers and floors of every log not in {@code logs} (their directories are gone:
   * such a log would start again at its first position, below a stale floor and under stale
   * markers); returns whether anything was there, in which case the caller must flush before any
   * log takes an append.
   */
  static boolean forgetOtherLogs(Database db, Set<String> logs) {
    Set<String> stale = new TreeSet<>();
    // Markers: log names are ASCII letters, digits, '.', '_' and '-', all below '{'. One seek per
    // log name, not a visit per marker.
    byte[] from = {1};
    while (true) {
      String[] name = {null};
      db.internalRecords().scan(from, new byte[] {'{'}, (k, v) -> {
        int zero = 0;
        while (zero < k.length && k[zero] != 0) {
          zero++;
        }
        name[0] = new String(k, 0, zero, StandardCharsets.UTF_8);
        return false;
      });
      if (name[0] == null) {
        break;
      }
      if (!logs.contains(name[0])) {
        stale.add(name[0]);
      }
      from = endOf(name[0]);
    }
    db.internalRecords().scan(new byte[] {0, FLOOR}, new byte[] {0, FLOOR + 1}, (k, v) -> {
      String name = new String(k, 2, k.length - 2, StandardCharsets.UTF_8);
      if (!logs.contains(name)) {
        stale.add(name);
      }
      return true;
    });
    db.internalRecords().scan(new byte[] {0, DEAD}, new byte[] {0, DEAD + 1}, (k, v) -> {
      String name = new String(k, 2, k.length - 11, StandardCharsets.UTF_8); // dead markers are rare: one visit each
      if (!logs.contains(name)) {
        stale.add(name);
      }
      return true;
    });
    for (String name : stale) {
      db.internalRecords().deleteRange(key(name, 0), endOf(name));
      db.internalRecords().deleteRange(deadKey(name, 0), deadEndOf(name));
      db.internalRecords().write(List.of(floorKey(name)), Arrays.asList((byte[]) null));
    }
    return !stale.isEmpty();
  }

  public static byte[] key(String log, long position) {
    byte[] name = log.getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[name.length + 9];
    System.arraycopy(name, 0, key, 0, name.length);
    for (int i = 0; i < 8; i++) {
      key[name.length + 1 + i] = (byte) (position >>> (56 - 8 * i));
    }
    return key;
  }

  /** Just past every marker key of {@code log}: its name and a 1 byte. */
  private static byte[] endOf(String log) {
    byte[] name = log.getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[name.length + 1];
    System.arraycopy(name, 0, key, 0, name.length);
    key[name.length] = 1;
    return key;
  }

  private static byte[] deadKey(String log, long position) {
    byte[] name = log.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(name.length + 11).put((byte) 0).put(DEAD).put(name).put((byte) 0).putLong(position)
        .array();
  }

  /** Just past every dead marker of {@code log}. */
  private static byte[] deadEndOf(String log) {
    byte[] name = log.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(name.length + 3).put((byte) 0).put(DEAD).put(name).put((byte) 1).array();
  }

  private static byte[] floorKey(String log) {
    byte[] name = log.getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[name.length + 2];
    key[1] = FLOOR;
    System.arraycopy(name, 0, key, 2, name.length);
    return key;
  }

  private static byte[] floorValue(long position) {
    return ByteBuffer.allocate(8).putLong(position).array();
  }
}
