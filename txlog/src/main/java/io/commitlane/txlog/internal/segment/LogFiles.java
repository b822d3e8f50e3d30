package io.commitlane.txlog.internal.segment;

/** The file names a log directory may hold besides its segments. */
public final class LogFiles {
  private LogFiles() {}

  /** The writer lock of a log directory (see {@link io.commitlane.txlog.internal.fs.LogFileSystem#lockDirectory}). */
  public static final String LOCK = "LOCK";

  /** The flushed-position file, its temporary twin and the writer lock. */
  public static boolean isSideFile(String name) {
    return name.equals(FlushedPositionFile.NAME) || name.equals(FlushedPositionFile.NAME + ".tmp")
        || name.equals(LOCK);
  }
}
