package io.commitlane.txlog.internal.segment;

import io.commitlane.txlog.LogIOException;
import io.commitlane.txlog.TransactionLogException;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One writer per log directory: a claim holds the directory's real path in this process's set of
 * open logs (however the directory is named; links are resolved) and the directory's lock against
 * other processes, which would append at the same offsets. Held from open to close.
 */
public final class LogDirectoryClaim {
  private static final Set<Path> OPEN_DIRECTORIES = ConcurrentHashMap.newKeySet();

  private final Path directory;
  private final Closeable lock;

  private LogDirectoryClaim(Path directory, Closeable lock) {
    this.directory = directory;
    this.lock = lock;
  }

  /**
   * Creates {@code directory} if needed and claims it.
   *
   * @throws LogIOException if the directory cannot be created, resolved or locked
   * @throws TransactionLogException if the directory is already open in this process or another
   */
  public static LogDirectoryClaim take(Path directory, LogFileSystem fs) {
    Path dir;
    try {
      fs.createDirectories(directory);
      dir = fs.realPath(directory.toAbsolutePath().normalize());
    } catch (IOException e) {
      throw new LogIOException("cannot open transaction log " + directory, e);
    }
    if (!OPEN_DIRECTORIES.add(dir)) {
      throw new TransactionLogException("transaction log " + dir + " is already open in this"
          + " process; share that instance or close it first");
    }
    Closeable lock = null;
    try {
      lock = fs.lockDirectory(dir);
      if (lock == null) {
        throw new TransactionLogException("transaction log " + dir + " is open in another process;"
            + " only one process may write a log");
      }
      return new LogDirectoryClaim(dir, lock);
    } catch (IOException e) {
      release(lock);
      OPEN_DIRECTORIES.remove(dir);
      throw new LogIOException("cannot open transaction log " + dir, e);
    } catch (RuntimeException | Error e) {
      release(lock);
      OPEN_DIRECTORIES.remove(dir);
      throw e;
    }
  }

  /** The claimed directory's real path. */
  public Path directory() {
    return directory;
  }

  /** Gives the directory up; a failure to unlock is ignored (the process lock goes with the file). */
  public void release() {
    release(lock);
    OPEN_DIRECTORIES.remove(directory);
  }

  private static void release(Closeable lock) {
    if (lock != null) {
      try {
        lock.close();
      } catch (IOException ignored) {
        // Nothing to report: the caller is closing, or already failing with its own error.
      }
    }
  }
}
