package io.commitlane.cluster.internal.owner;

import io.commitlane.cluster.OwnerEpochDamagedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The durable owner counter of a database directory, {@code <db>/owner.epoch}: the last epoch an
 * owner took. Invariant: once an owner was handed epoch n, every later read yields at least n,
 * whatever point a crash or power loss interrupted a write at.
 *
 * <p>Why a file of its own: the epoch cannot be rewritten in place in {@code owner.lock} (a crash
 * between truncating and writing leaves no epoch, and the next owner would start over at 1), and
 * the lock file cannot be replaced by a rename either (the OS lock belongs to its inode, so a new
 * file would be a second, unlocked lock). So the counter is written the way a file is replaced
 * safely: a new copy {@code owner.epoch.tmp}, forced, renamed over the old one, then the directory
 * forced; a reader sees the old complete record or the new one.
 *
 * <p>Layout: a magic number (4 bytes, "CLEP"), the epoch (8 bytes, big-endian), then a CRC-32C of
 * the twelve bytes before it; a record that is short, long or fails its checksum is damaged.
 * Written only while the writer holds the database's {@link OwnerLock}.
 */
public final class OwnerEpoch {
  static final String FILE_NAME = "owner.epoch";
  static final String TEMP_NAME = FILE_NAME + ".tmp";
  private static final int MAGIC = 0x434C4550;
  private static final int RECORD_BYTES = 4 + 8 + 4;

  private OwnerEpoch() {}

  /**
   * The last epoch handed out in {@code dbDir}: the greatest of the epoch file, a complete copy a
   * crash left before its rename, and {@code fromLockFile} (the epoch the lock file records, which
   * older versions kept there only); 0 if none holds one. Throws {@link OwnerEpochDamagedException}
   * when the epoch file exists but is damaged: its epoch cannot be known, and guessing low would
   * reorder commit stamps across owners.
   */
  public static long last(Path dbDir, long fromLockFile) throws IOException {
    Path file = dbDir.resolve(FILE_NAME);
    byte[] record = readIfExists(file);
    long last = Math.max(0, fromLockFile);
    if (record != null) {
      String damage = damage(record);
      if (damage != null) {
        throw new OwnerEpochDamagedException(file, damage);
      }
      last = Math.max(last, epochOf(record));
    }
    byte[] unrenamed = readIfExists(dbDir.resolve(TEMP_NAME));
    if (unrenamed != null && damage(unrenamed) == null) {
      last = Math.max(last, epochOf(unrenamed)); // forced before a crash stopped its rename: it may have been handed out
    }
    return last;
  }

  /** Record {@code epoch} durably: when this returns, no crash can make {@link #last} yield less. */
  public static void write(Path dbDir, long epoch) throws IOException {
    Path temp = dbDir.resolve(TEMP_NAME);
    ByteBuffer out = ByteBuffer.wrap(record(epoch));
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      while (out.hasRemaining()) {
        ch.write(out);
      }
      ch.force(true);
    }
    Files.move(temp, dbDir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel directory = FileChannel.open(dbDir, StandardOpenOption.READ)) {
      directory.force(true); // the rename itself must survive a power loss
    }
  }

  public static byte[] record(long epoch) {
    ByteBuffer b = ByteBuffer.allocate(RECORD_BYTES).putInt(MAGIC).putLong(epoch);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, RECORD_BYTES - 4);
    return b.putInt((int) crc.getValue()).array();
  }

  /** Why {@code record} is not a complete epoch record, or null if it is one. */
  private static String damage(byte[] record) {
    if (record.length != RECORD_BYTES) {
      return record.length + " bytes where a record has " + RECORD_BYTES;
    }
    ByteBuffer b = ByteBuffer.wrap(record);
    if (b.getInt(0) != MAGIC) {
      return "it does not start with the epoch record's magic number";
    }
    CRC32C crc = new CRC32C();
    crc.update(record, 0, RECORD_BYTES - 4);
    return b.getInt(RECORD_BYTES - 4) == (int) crc.getValue() ? null : "its checksum does not match";
  }

  private static long epochOf(byte[] record) {
    return ByteBuffer.wrap(record).getLong(4);
  }

  /** The file's bytes, at most one byte more than a record (enough to tell it is too long); null if absent. */
  private static byte[] readIfExists(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer in = ByteBuffer.allocate(RECORD_BYTES + 1);
      while (in.hasRemaining() && ch.read(in) >= 0) {
        // read what there is
      }
      byte[] bytes = new byte[in.position()];
      in.flip().get(bytes);
      return bytes;
    } catch (NoSuchFileException e) {
      return null;
    }
  }
}
