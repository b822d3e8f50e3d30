package io.commitlane.txlog.internal.fs;

import io.commitlane.annotation.InternalApi;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * All file I/O of a transaction log goes through this interface, so tests can inject faults
 * ({@link FaultInjectingFileSystem}) and the log never touches {@code java.nio.file.Files}
 * directly. The default is {@link JdkFileSystem}.
 */
@InternalApi
public interface LogFileSystem {

  /** Opens an existing file for reading, and for writing too when {@code writable}. */
  LogFile open(Path file, boolean writable) throws IOException;

  /** Creates a new, empty file for reading and writing; fails if it already exists. */
  LogFile create(Path file) throws IOException;

  /** The regular files directly inside {@code directory}, sorted by name. */
  List<Path> list(Path directory) throws IOException;

  /**
   * Everything directly inside {@code directory} that is not a regular file (directories, links to
   * directories, devices), sorted by name: recovery and inspection report them.
   */
  List<Path> listOthers(Path directory) throws IOException;

  /**
   * The canonical path of the existing {@code directory} (links resolved), so one log directory
   * has one name however it was reached.
   */
  Path realPath(Path directory) throws IOException;

  /**
   * Takes the writer lock of a log directory (an OS file lock on its {@code LOCK} file), held until
   * the returned handle is closed, or returns {@code null} if another process holds it. Implement
   * it so that nothing else in this process opens the lock file: closing any descriptor of a file
   * releases a POSIX lock on it.
   */
  java.io.Closeable lockDirectory(Path directory) throws IOException;

  /** Creates {@code directory} and any missing parents. */
  void createDirectories(Path directory) throws IOException;

  /** Whether {@code path} exists. */
  boolean exists(Path path) throws IOException;

  /** The size of {@code file} in bytes. */
  long size(Path file) throws IOException;

  /** Deletes {@code file} if it exists. */
  void delete(Path file) throws IOException;

  /** Renames {@code source} to {@code target} atomically, replacing {@code target}. */
  void rename(Path source, Path target) throws IOException;

  /**
   * Forces {@code directory}'s entries (creations, renames, deletions) to the storage device. A
   * file system that cannot do this does nothing.
   */
  void forceDirectory(Path directory) throws IOException;
}
