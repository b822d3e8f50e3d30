package io.commitlane.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The single-writer guard of a database directory: an exclusive lock on {@code <db>/owner.lock},
 * held by the node that has the database open as a sharded entity, from before it opens RocksDB
 * until after it released it.
 *
 * <p>Why a lock of our own: sharding already runs one entity per database, but a handoff that
 * times out, or a node that was downed while it still runs, could let a second owner start
 * while the first still writes. Across processes RocksDB's own LOCK file would refuse that
 * second open; inside one process (several nodes in one JVM) commitlane shares one native handle
 * per path and would not. An OS file lock covers both: another process gets no lock, and this
 * JVM refuses an overlapping lock ({@link OverlappingFileLockException}). The OS drops the lock
 * when the holding process dies, so a crashed owner never blocks its successor.
 *
 * <p>The file also counts owners: each holder takes the next <em>epoch</em>, which orders commit
 * stamps across owners ({@link io.commitlane.actors.CommitStamp}).
 */
final class OwnerLock implements AutoCloseable {
  static final String FILE_NAME = "owner.lock";
  private static final int EPOCH_BYTES = 8;

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;
  private final long epoch;

  private OwnerLock(Path file, FileChannel channel, FileLock lock, long epoch) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
    this.epoch = epoch;
  }

  /**
   * Take the lock of {@code dbDir} (creating the directory) and the next epoch, recording {@code
   * owner} in the file for people who look; null if another owner, in this process or another,
   * holds it.
   */
  static OwnerLock tryAcquire(Path dbDir, String owner) {
    Path file = dbDir.resolve(FILE_NAME);
    FileChannel channel = null;
    try {
      Files.createDirectories(dbDir);
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // held by another owner in this JVM
      }
      if (lock == null) {
        channel.close();
        return null;
      }
      long epoch = readEpoch(channel) + 1;
      byte[] who = owner.getBytes(StandardCharsets.UTF_8);
      ByteBuffer out = ByteBuffer.allocate(EPOCH_BYTES + who.length).putLong(epoch).put(who).flip();
      channel.truncate(0);
      while (out.hasRemaining()) {
        channel.write(out, out.position());
      }
      channel.force(true); // the epoch must never go back, even after a power loss
      return new OwnerLock(file, channel, lock, epoch);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new UncheckedIOException("cannot take the owner lock " + file, e);
    }
  }

  /** Who holds (or last held) the lock of {@code dbDir}, as written by the holder; empty if never held. */
  static String lastOwner(Path dbDir) {
    Path file = dbDir.resolve(FILE_NAME);
    try {
      byte[] all = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
      return all.length <= EPOCH_BYTES ? "" : new String(all, EPOCH_BYTES, all.length - EPOCH_BYTES, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  long epoch() {
    return epoch;
  }

  Path file() {
    return file;
  }

  boolean isHeld() {
    return lock.isValid();
  }

  /** Release the lock (idempotent). Call only once the database handle is released. */
  @Override
  public void close() {
    closeQuietly(channel); // closing the channel releases its lock
  }

  private static long readEpoch(FileChannel channel) throws IOException {
    if (channel.size() < EPOCH_BYTES) {
      return 0;
    }
    ByteBuffer in = ByteBuffer.allocate(EPOCH_BYTES);
    while (in.hasRemaining() && channel.read(in, in.position()) >= 0) {
      // read the whole counter
    }
    return in.flip().getLong();
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing to do: the lock goes with the channel either way
      }
    }
  }
}
