package io.commitlane.txlog;

/** The file names a log directory may hold besides its segments. */
final class LogFiles {
  private LogFiles() {}

  /** The flushed-position file and its temporary twin. */
  static boolean isSideFile(String name) {
    return name.equals(FlushedPositionFile.NAME) || name.equals(FlushedPositionFile.NAME + ".tmp");
  }
}
