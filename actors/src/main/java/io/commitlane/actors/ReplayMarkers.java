package io.commitlane.actors;

import io.commitlane.storage.Database;
import io.commitlane.storage.PendingCommit;
import java.nio.charset.StandardCharsets;

/**
 * Marks, inside RocksDB, which logged commits RocksDB holds: each logged commit's write carries a
 * marker keyed by its log and record position, in commitlane's own column family. RocksDB then
 * holds a commit's marker exactly when it holds the commit's data (after its own WAL recovery, or
 * after a flush), so crash replay can tell a record that must be applied from one that must not
 * be applied again over newer data. Markers below a log's flushed position are never needed
 * again and are deleted (one range tombstone per flush).
 *
 * <p>Key: the log name's bytes, a 0 byte, the position as 8 big-endian bytes. Log names never
 * contain a 0 byte, so one log's keys never fall in another's range.
 */
final class ReplayMarkers {
  private static final byte[] EMPTY = {};

  private ReplayMarkers() {}

  /** In the commit's before-write step, after its record was appended at {@code position}. */
  static void mark(PendingCommit commit, String log, long position) {
    commit.addInternalWrite(key(log, position), EMPTY);
  }

  /** Whether RocksDB holds the commit whose record is at {@code position} of {@code log}. */
  static boolean held(Database db, String log, long position) {
    return db.internalRecords().get(key(log, position)) != null;
  }

  /** Deletes the markers of {@code log} below {@code position} (its records there are flushed). */
  static void deleteBelow(Database db, String log, long position) {
    db.internalRecords().deleteRange(key(log, 0), key(log, position));
  }

  static byte[] key(String log, long position) {
    byte[] name = log.getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[name.length + 9];
    System.arraycopy(name, 0, key, 0, name.length);
    for (int i = 0; i < 8; i++) {
      key[name.length + 1 + i] = (byte) (position >>> (56 - 8 * i));
    }
    return key;
  }
}
