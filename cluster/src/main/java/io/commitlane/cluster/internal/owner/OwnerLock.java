package io.commitlane.cluster.internal.owner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The single-writer guard of a database directory: an exclusive lock on {@code <db>/owner.lock},
 * held by the node that has the database open as a sharded entity, from before it opens RocksDB
 * until after it released it.
 *
 * <p>Why a lock of our own: sharding already runs one entity per database, but a handoff that
 * times out, or a node that was downed while it still runs, could let a second owner start
 * while the first still writes. Across processes RocksDB's own LOCK file would refuse that
 * second open; inside one process (several nodes in one JVM) commitlane shares one native handle
 * per path and would not. An OS file lock covers both. The OS drops the lock when the holding
 * process dies, so a crashed owner never blocks its successor.
 *
 * <p><b>Keeping the lock.</b> On Linux the lock is a POSIX {@code fcntl} lock, which belongs to
 * the process and is dropped when the process closes <em>any</em> descriptor of the file, not
 * only the one it locked through. So while this process holds a lock file, nothing here opens
 * another descriptor of it: a second acquire in this process is refused from the {@link #HELD}
 * table without touching the file, and {@link #lastOwner} reads the record through the holder's
 * channel. Acquiring, releasing and reading are serialized per process (they are rare), so no
 * thread closes a descriptor of a file while another thread of this process takes its lock.
 *
 * <p>Each holder takes the next <em>epoch</em>, which orders commit stamps across owners ({@link
 * io.commitlane.actors.CommitStamp}); {@link OwnerEpoch} keeps the counter durably in a file of
 * its own. The lock file records the holder for people who look. Layout: the epoch (8 bytes,
 * big-endian), then the holder's address in UTF-8.
 */
public final class OwnerLock implements AutoCloseable {
  public static final String FILE_NAME = "owner.lock";
  private static final int EPOCH_BYTES = 8;
  /** The lock files this process holds, by real path; guarded by its own monitor. */
  private static final Map<Path, OwnerLock> HELD = new HashMap<>();
  /** Descriptors opened on a file this process had locked some other way: never closed; guarded by {@link #HELD}. */
  private static final List<FileChannel> UNCLOSABLE = new ArrayList<>();

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
  public static OwnerLock tryAcquire(Path dbDir, String owner) {
    Path file = dbDir.resolve(FILE_NAME);
    synchronized (HELD) {
      FileChannel channel = null;
      try {
        Files.createDirectories(dbDir);
        Path key = dbDir.toRealPath().resolve(FILE_NAME);
        if (HELD.containsKey(key)) {
          return null; // held by another owner in this process: opening the file again would drop its lock
        }
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          // Locked in this process outside this class: closing this descriptor would drop that
          // lock, so it stays open (and referenced, so no cleaner closes it).
          UNCLOSABLE.add(channel);
          return null;
        }
        if (lock == null) {
          channel.close(); // another process holds it; this process holds no lock on the file, so closing drops nothing
          return null;
        }
        long epoch = OwnerEpoch.last(dbDir, readEpoch(channel)) + 1;
        OwnerEpoch.write(dbDir, epoch); // durable before the epoch is handed out: it must never go back
        writeRecord(channel, epoch, owner);
        OwnerLock taken = new OwnerLock(key, channel, lock, epoch);
        HELD.put(key, taken);
        return taken;
      } catch (IOException e) {
        closeQuietly(channel); // drops a lock just taken: this process held no other lock on the file
        throw new UncheckedIOException("cannot take the owner lock " + file, e);
      } catch (RuntimeException e) {
        closeQuietly(channel);
        throw e;
      }
    }
  }

  /**
   * Who holds (or last held) the lock of {@code dbDir}, as written by the holder; empty if never
   * held. Reads through the holder's channel when this process holds it.
   */
  public static String lastOwner(Path dbDir) {
    synchronized (HELD) {
      try {
        Path key = dbDir.toRealPath().resolve(FILE_NAME);
        OwnerLock held = HELD.get(key);
        if (held != null) {
          return ownerIn(held.channel);
        }
        try (FileChannel read = FileChannel.open(key, StandardOpenOption.READ)) {
          return ownerIn(read); // this process holds no lock on the file: closing this descriptor drops nothing
        }
      } catch (NoSuchFileException e) {
        return "";
      } catch (IOException e) {
        return "(unreadable: " + e.getMessage() + ")";
      }
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
    synchronized (HELD) {
      closeQuietly(channel); // closing the channel releases its lock
      HELD.remove(file, this);
    }
  }

  /**
   * The record for people who look (and for versions that read the epoch here): written over the
   * old one, then cut to its length, so a crash in between leaves an epoch in it, never none.
   */
  private static void writeRecord(FileChannel channel, long epoch, String owner) throws IOException {
    byte[] who = owner.getBytes(StandardCharsets.UTF_8);
    ByteBuffer out = ByteBuffer.allocate(EPOCH_BYTES + who.length).putLong(epoch).put(who).flip();
    while (out.hasRemaining()) {
      channel.write(out, out.position());
    }
    channel.truncate(out.limit());
    channel.force(true);
  }

  private static String ownerIn(FileChannel channel) throws IOException {
    long size = channel.size();
    if (size <= EPOCH_BYTES) {
      return "";
    }
    ByteBuffer in = ByteBuffer.allocate((int) Math.min(size - EPOCH_BYTES, 4096));
    while (in.hasRemaining() && channel.read(in, EPOCH_BYTES + in.position()) >= 0) {
      // read the whole record
    }
    return new String(in.array(), 0, in.position(), StandardCharsets.UTF_8);
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
