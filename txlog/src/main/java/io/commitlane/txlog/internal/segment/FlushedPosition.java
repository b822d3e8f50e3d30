package io.commitlane.txlog.internal.segment;

import io.commitlane.txlog.LogIOException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where crash replay starts: the persisted flushed position of a log. It only moves forward, and
 * only after the file holding it was replaced atomically ({@link FlushedPositionFile}); one
 * writer at a time, and none once the log is closed.
 */
public final class FlushedPosition {
  private final FlushedPositionFile file;
  private final String logName;
  private final FlushedPositionFile.Stored atOpen;
  private volatile long position;
  /** Set at open for a log without segments: the file is written before its first segment. */
  private boolean initialPending;
  private boolean closed;

  public FlushedPosition(LogFileSystem fs, Path directory, String logName) throws IOException {
    this.file = new FlushedPositionFile(fs, directory);
    this.logName = logName;
    this.atOpen = file.read();
    this.position = atOpen.position();
  }

  public long get() {
    return position;
  }

  /** What the file held at open: a position, or why there was none. */
  public FlushedPositionFile.Stored atOpen() {
    return atOpen;
  }

  /**
   * The log had no segment at open: its first segment will be preceded by a file holding {@link
   * LogPosition#START}, so that from then on a missing file can only mean damage.
   */
  public synchronized void expectInitial() {
    initialPending = true;
  }

  /**
   * Before a segment is created: writes the initial file if the log had no segment at open and
   * nothing was written since. The error is the segment creation's (nothing was created).
   */
  synchronized void storeInitial() throws IOException {
    if (!initialPending || closed) {
      return;
    }
    file.write(position);
    initialPending = false;
  }

  /**
   * Persists {@code target} unless the position is already there or further, or the log closed.
   *
   * @throws LogIOException if it could not be persisted (it stays where it was)
   */
  public synchronized void advanceTo(long target) {
    if (target <= position || closed) {
      return;
    }
    try {
      file.write(target);
      initialPending = false;
    } catch (IOException e) {
      throw new LogIOException("cannot persist the flushed position of transaction log '" + logName
          + "' (it stays at " + LogPosition.toString(position) + ")", e);
    }
    position = target;
  }

  /** Refuses later writes; returns once a write in progress is done. */
  public synchronized void close() {
    closed = true;
  }
}
