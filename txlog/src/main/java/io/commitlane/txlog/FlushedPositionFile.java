package io.commitlane.txlog;

import io.commitlane.txlog.fs.LogFile;
import io.commitlane.txlog.fs.LogFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The persisted flushed position: a 20-byte file (magic "CLFP", version, position, CRC-32C)
 * replaced atomically (write a temp file, force it, rename over, force the directory), so a crash
 * leaves either the old or the new value, never a torn one.
 */
final class FlushedPositionFile {
  static final String NAME = "flushed-position";
  private static final String TEMP = NAME + ".tmp";
  private static final int MAGIC = 0x434C4650;
  private static final int VERSION = 1;
  private static final int BYTES = 20;

  private final LogFileSystem fs;
  private final Path directory;

  FlushedPositionFile(LogFileSystem fs, Path directory) {
    this.fs = fs;
    this.directory = directory;
  }

  /** The stored position, or {@link LogPosition#START} if there is none or it is unreadable. */
  long read() throws IOException {
    fs.delete(directory.resolve(TEMP));
    return readOnly();
  }

  /** As {@link #read()} but leaves a stray temp file alone (for inspection). */
  long readOnly() throws IOException {
    Path file = directory.resolve(NAME);
    if (!fs.exists(file)) {
      return LogPosition.START;
    }
    ByteBuffer buf = ByteBuffer.allocate(BYTES);
    try (LogFile f = fs.open(file, false)) {
      if (f.read(buf, 0) != BYTES) {
        return LogPosition.START;
      }
    }
    if (buf.getInt(0) != MAGIC || buf.getInt(4) != VERSION || crc(buf) != buf.getInt(16)) {
      // Unreadable: replaying everything is the safe choice.
      return LogPosition.START;
    }
    return buf.getLong(8);
  }

  void write(long position) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(BYTES);
    buf.putInt(0, MAGIC).putInt(4, VERSION).putLong(8, position);
    buf.putInt(16, crc(buf));
    Path temp = directory.resolve(TEMP);
    fs.delete(temp);
    try (LogFile f = fs.create(temp)) {
      f.write(buf, 0);
      f.force();
    }
    fs.rename(temp, directory.resolve(NAME));
    fs.forceDirectory(directory);
  }

  private static int crc(ByteBuffer buf) {
    CRC32C crc = new CRC32C();
    crc.update(buf.duplicate().position(0).limit(16));
    return (int) crc.getValue();
  }
}
