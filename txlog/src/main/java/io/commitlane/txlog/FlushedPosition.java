package io.commitlane.txlog;

import io.commitlane.txlog.fs.LogFileSystem;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where crash replay starts: the persisted flushed position of a log. It only moves forward, and
 * only after the file holding it was replaced atomically ({@link FlushedPositionFile}); one
 * writer at a time, and none once the log is closed.
 */
final class FlushedPosition {
  private final FlushedPositionFile file;
  private final String logName;
  private volatile long position;
  private boolean closed;

  FlushedPosition(LogFileSystem fs, Path directory, String logName) throws IOException {
    this.file = new FlushedPositionFile(fs, directory);
    this.logName = logName;
    this.position = file.read();
  }

  long get() {
    return position;
  }

  /**
   * Persists {@code target} unless the position is already there or further, or the log closed.
   *
   * @throws LogIOException if it could not be persisted (it stays where it was)
   */
  synchronized void advanceTo(long target) {
    if (target <= position || closed) {
      return;
    }
    try {
      file.write(target);
    } catch (IOException e) {
      throw new LogIOException("cannot persist the flushed position of transaction log '" + logName
          + "' (it stays at " + LogPosition.toString(position) + ")", e);
    }
    position = target;
  }

  /** Refuses later writes; returns once a write in progress is done. */
  synchronized void close() {
    closed = true;
  }
}
