package io.commitlane.storage;

/**
 * A {@link Cursor} was used after it ended: it was closed, or the transaction it reads in was
 * committed or aborted (a cursor reads that transaction's snapshot and writes, which are gone).
 * Open a new cursor, in a new transaction if its transaction ended; to continue where this one
 * stopped, scan {@code range.after(cursor.lastKey())}.
 */
public final class CursorClosedException extends CommitlaneException {
  public CursorClosedException(String message) {
    super(message);
  }
}
