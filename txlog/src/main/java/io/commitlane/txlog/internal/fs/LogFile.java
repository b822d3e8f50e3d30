package io.commitlane.txlog.internal.fs;

import io.commitlane.annotation.InternalApi;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One open file of a transaction log, addressed by absolute byte positions, like a positional
 * {@link java.nio.channels.FileChannel}. Implementations are safe for concurrent positional reads;
 * the log serializes writes itself.
 */
@InternalApi
public interface LogFile extends Closeable {

  /**
   * Writes all remaining bytes of {@code src} at {@code position}, advancing {@code src}'s
   * position. Returns only when every byte was handed to the operating system.
   */
  void write(ByteBuffer src, long position) throws IOException;

  /**
   * Reads bytes at {@code position} into {@code dst} until it is full or the end of the file is
   * reached.
   *
   * @return the number of bytes read, 0 at or past the end of the file
   */
  int read(ByteBuffer dst, long position) throws IOException;

  /** The current size of the file in bytes. */
  long size() throws IOException;

  /** Cuts the file to {@code size} bytes; does nothing if it is already that short. */
  void truncate(long size) throws IOException;

  /** Forces written data (and the size) to the storage device: an fsync/fdatasync. */
  void force() throws IOException;

  /**
   * Maps {@code size} bytes starting at {@code position} read-only. The mapping stays valid after
   * the file is closed; the caller must not touch bytes past the end of the file.
   */
  ByteBuffer map(long position, long size) throws IOException;

  /** Closes the file; idempotent. */
  @Override
  void close() throws IOException;
}
