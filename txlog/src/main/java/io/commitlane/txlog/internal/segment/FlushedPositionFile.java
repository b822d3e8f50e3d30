package io.commitlane.txlog.internal.segment;

import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.internal.fs.LogFile;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The persisted flushed position: a 20-byte file (magic "CLFP", version, position, CRC-32C)
 * replaced atomically (write a temp file, force it, rename over, force the directory), so a crash
 * leaves either the old or the new value, never a torn one.
 */
public final class FlushedPositionFile {
  public static final String NAME = "flushed-position";
  private static final String TEMP = NAME + ".tmp";
  private static final int MAGIC = 0x434C4650;
  private static final int VERSION = 1;
  private static final int BYTES = 20;

  private final LogFileSystem fs;
  private final Path directory;

  public FlushedPositionFile(LogFileSystem fs, Path directory) {
    this.fs = fs;
    this.directory = directory;
  }

  /**
   * What the file holds: a position, or {@link LogPosition#START} with the reason there is none
   * ({@code problem}: the file is missing or unreadable). A brand-new log has no file until its
   * first segment is created (see {@link FlushedPosition#storeInitial()}); after that a missing
   * or unreadable file is damage, because where replay may start is then unknown.
   */
  public record Stored(long position, String problem) {
    public boolean known() {
      return problem == null;
    }
  }

  /** The stored position, after deleting a temp file a crash left behind. */
  Stored read() throws IOException {
    fs.delete(directory.resolve(TEMP));
    return readOnly();
  }

  /** As {@link #read()} but leaves a stray temp file alone (for inspection). */
  public Stored readOnly() throws IOException {
    Path file = directory.resolve(NAME);
    if (!fs.exists(file)) {
      return new Stored(LogPosition.START, file + " is missing");
    }
    if (notRegular(file)) {
      return new Stored(LogPosition.START, file + " is not a regular file");
    }
    ByteBuffer buf = ByteBuffer.allocate(BYTES);
    int read;
    try (LogFile f = fs.open(file, false)) {
      read = f.read(buf, 0);
    }
    if (read != BYTES) {
      return new Stored(LogPosition.START, file + " is unreadable (" + Math.max(read, 0) + " bytes, not " + BYTES + ")");
    }
    if (buf.getInt(0) != MAGIC || buf.getInt(4) != VERSION || crc(buf) != buf.getInt(16)) {
      return new Stored(LogPosition.START, file + " is unreadable (bad magic, version or checksum)");
    }
    return new Stored(buf.getLong(8), null);
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
    Path file = directory.resolve(NAME);
    try {
      fs.rename(temp, file);
    } catch (IOException e) {
      if (!notRegular(file)) {
        throw e;
      }
      replaceNotRegular(file, e);
      fs.rename(temp, file);
    }
    fs.forceDirectory(directory);
  }

  /**
   * Something that is not a regular file stands where the file goes (a directory made by hand):
   * an empty directory holds nothing and is removed; anything else is not the log's to delete.
   */
  private void replaceNotRegular(Path file, IOException renameFailure) throws IOException {
    try {
      fs.delete(file);
    } catch (IOException notEmpty) {
      IOException refused = new IOException(file + " is a directory, where the log keeps its flushed position, and"
          + " it is not empty: move it away and open again", notEmpty);
      refused.addSuppressed(renameFailure);
      throw refused;
    }
  }

  /** Whether {@code file} exists but is not a regular file (a directory, a socket). */
  private boolean notRegular(Path file) throws IOException {
    return fs.listOthers(directory).contains(file);
  }

  private static int crc(ByteBuffer buf) {
    CRC32C crc = new CRC32C();
    crc.update(buf.duplicate().position(0).limit(16));
    return (int) crc.getValue();
  }
}
