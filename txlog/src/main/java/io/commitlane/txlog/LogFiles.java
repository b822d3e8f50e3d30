package io.commitlane.txlog;

/** The file names a log directory may hold besides its segments. */
final class LogFiles {
  private LogFiles() {}

  /** The writer lock of a log directory (see {@link io.commitlane.txlog.fs.LogFileSystem#lockDirectory}). */
  static final String LOCK = "LOCK";

  /** The flushed-position file, its temporary twin and the writer lock. */
  static boolean isSideFile(String name) {
    return name.equals(FlushedPositionFile.NAME) || name.equals(FlushedPositionFile.NAME + ".tmp")
        || name.equals(LOCK);
  }
}
