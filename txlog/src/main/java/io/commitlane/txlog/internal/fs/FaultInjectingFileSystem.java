package io.commitlane.txlog.internal.fs;

import io.commitlane.annotation.InternalApi;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link LogFileSystem} that wraps another and injects the faults a log must survive: a power
 * loss that drops every byte written since a file's last {@link LogFile#force() force}, a file
 * cut at an offset, flipped bytes, and a failing write or force.
 *
 * <p>It tracks, per path, how many bytes are known durable: the size at the last force, or the
 * size when the file was first seen through this wrapper (files that existed before count as
 * durable). {@link #crash()} turns that model into reality and kills every handle opened before
 * it, so a log that was "running" cannot write after the power loss. Directory entries are not
 * modelled: created and renamed files survive a crash.
 *
 * <p>Thread-safe. Faults armed with {@code failNext...} fire once, on whichever thread does the
 * next matching operation. Cut files of a closed log (or after {@link #crash()}): a live log maps
 * sealed segments, and a mapped page past a file's new end faults when read.
 */
@InternalApi
public final class FaultInjectingFileSystem implements LogFileSystem {

  /** What happens to bytes written after a file's last force when {@link #crash(LostWrites)} runs. */
  public enum LostWrites {
    /** The file is cut back to its durable size. */
    TRUNCATE,
    /** The file keeps its size but the bytes after the durable size read as zeros (ext4 delalloc). */
    ZERO_FILL
  }

  private final LogFileSystem delegate;
  private final Map<Path, AtomicLong> durableSizes = new ConcurrentHashMap<>();
  private final AtomicLong generation = new AtomicLong();
  private final AtomicBoolean failNextWrite = new AtomicBoolean();
  private final AtomicBoolean failNextForce = new AtomicBoolean();
  private final AtomicBoolean failNextCreate = new AtomicBoolean();
  private final AtomicLong forces = new AtomicLong();
  private final AtomicLong writes = new AtomicLong();
  private volatile Runnable beforeForce = () -> {};
  private volatile Runnable beforeWrite = () -> {};
  private volatile Runnable beforeCreate = () -> {};

  /** Wraps {@code delegate}, usually {@link JdkFileSystem#INSTANCE}. */
  public FaultInjectingFileSystem(LogFileSystem delegate) {
    this.delegate = delegate;
  }

  /** Wraps {@link JdkFileSystem#INSTANCE}. */
  public FaultInjectingFileSystem() {
    this(JdkFileSystem.INSTANCE);
  }

  /** The next {@link LogFile#write} through this file system throws an {@link IOException}. */
  public void failNextWrite() {
    failNextWrite.set(true);
  }

  /** The next {@link LogFile#force} through this file system throws an {@link IOException}. */
  public void failNextForce() {
    failNextForce.set(true);
  }

  /**
   * The next {@link #create} (a new segment, a flushed-position file) throws an {@link
   * IOException}, as a full disk does ("No space left on device").
   */
  public void failNextCreate() {
    failNextCreate.set(true);
  }

  /**
   * Runs {@code hook} on the forcing thread before every {@link LogFile#force}; tests use it to
   * hold a force with a latch and let writes pile up behind it.
   */
  public void beforeForce(Runnable hook) {
    this.beforeForce = hook == null ? () -> {} : hook;
  }

  /**
   * Runs {@code hook} on the writing thread before every {@link LogFile#write} (segment headers
   * included); tests use it to hold a buffer write with a latch while appends go on.
   */
  public void beforeWrite(Runnable hook) {
    this.beforeWrite = hook == null ? () -> {} : hook;
  }

  /**
   * Runs {@code hook} on the creating thread before every {@link #create} (a new segment: the
   * start of a segment switch); tests use it to hold or kill a log mid-switch.
   */
  public void beforeCreate(Runnable hook) {
    this.beforeCreate = hook == null ? () -> {} : hook;
  }

  /** How many file forces ran (successful or not) through this file system. */
  public long forceCount() {
    return forces.get();
  }

  /** How many file writes ran through this file system. */
  public long writeCount() {
    return writes.get();
  }

  /** A power loss that cuts unsynced bytes off: {@code crash(LostWrites.TRUNCATE)}. */
  public void crash() throws IOException {
    crash(LostWrites.TRUNCATE);
  }

  /**
   * Simulates a power loss: every handle opened so far fails from now on, and each file loses the
   * bytes written since its last force as {@code mode} says.
   */
  public void crash(LostWrites mode) throws IOException {
    generation.incrementAndGet();
    for (Map.Entry<Path, AtomicLong> entry : durableSizes.entrySet()) {
      Path path = entry.getKey();
      if (!delegate.exists(path)) {
        continue;
      }
      long durable = entry.getValue().get();
      try (LogFile file = delegate.open(path, true)) {
        long size = file.size();
        if (size <= durable) {
          continue;
        }
        if (mode == LostWrites.TRUNCATE) {
          file.truncate(durable);
        } else {
          file.write(ByteBuffer.allocate((int) (size - durable)), durable);
        }
      } catch (java.nio.file.NoSuchFileException renamedMeanwhile) {
        // A thread of the crashed process renamed or deleted it between the check and the open (a
        // flushed-position file replaced by its temporary one): gone from this name, as after a
        // power loss a moment later.
      }
    }
  }

  /** Cuts {@code file} to {@code length} bytes, as a torn write would. */
  public void cut(Path file, long length) throws IOException {
    try (LogFile f = delegate.open(file, true)) {
      f.truncate(length);
    }
    AtomicLong durable = durableSizes.get(key(file));
    if (durable != null) {
      durable.accumulateAndGet(length, Math::min);
    }
  }

  /** Inverts every bit of the byte at {@code offset} of {@code file}. */
  public void flipByte(Path file, long offset) throws IOException {
    flipBytes(file, offset, 1);
  }

  /** Inverts every bit of {@code count} bytes starting at {@code offset} of {@code file}. */
  public void flipBytes(Path file, long offset, int count) throws IOException {
    try (LogFile f = delegate.open(file, true)) {
      ByteBuffer bytes = ByteBuffer.allocate(count);
      int read = f.read(bytes, offset);
      if (read != count) {
        throw new IOException("cannot flip " + count + " bytes at " + offset + " of " + file);
      }
      for (int i = 0; i < count; i++) {
        bytes.put(i, (byte) ~bytes.get(i));
      }
      bytes.flip();
      f.write(bytes, offset);
    }
  }

  @Override
  public LogFile open(Path file, boolean writable) throws IOException {
    LogFile opened = delegate.open(file, writable);
    durableSizes.computeIfAbsent(key(file), k -> new AtomicLong(sizeOrZero(opened)));
    return new FaultyFile(key(file), opened, generation.get());
  }

  @Override
  public LogFile create(Path file) throws IOException {
    beforeCreate.run();
    if (failNextCreate.getAndSet(false)) {
      throw new IOException("injected create failure on " + file + " (No space left on device)");
    }
    LogFile created = delegate.create(file);
    durableSizes.put(key(file), new AtomicLong());
    return new FaultyFile(key(file), created, generation.get());
  }

  @Override
  public List<Path> list(Path directory) throws IOException {
    return delegate.list(directory);
  }

  @Override
  public List<Path> listOthers(Path directory) throws IOException {
    return delegate.listOthers(directory);
  }

  @Override
  public java.io.Closeable lockDirectory(Path directory) throws IOException {
    return delegate.lockDirectory(directory);
  }

  @Override
  public Path realPath(Path directory) throws IOException {
    return delegate.realPath(directory);
  }

  @Override
  public void createDirectories(Path directory) throws IOException {
    delegate.createDirectories(directory);
  }

  @Override
  public boolean exists(Path path) throws IOException {
    return delegate.exists(path);
  }

  @Override
  public long size(Path file) throws IOException {
    return delegate.size(file);
  }

  @Override
  public void delete(Path file) throws IOException {
    delegate.delete(file);
    durableSizes.remove(key(file));
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    delegate.rename(source, target);
    AtomicLong durable = durableSizes.remove(key(source));
    if (durable != null) {
      durableSizes.put(key(target), durable);
    } else {
      durableSizes.remove(key(target));
    }
  }

  @Override
  public void forceDirectory(Path directory) throws IOException {
    delegate.forceDirectory(directory);
  }

  private static Path key(Path file) {
    return file.toAbsolutePath().normalize();
  }

  private static long sizeOrZero(LogFile file) {
    try {
      return file.size();
    } catch (IOException e) {
      return 0;
    }
  }

  private final class FaultyFile implements LogFile {
    private final Path path;
    private final LogFile file;
    private final long openedIn;

    FaultyFile(Path path, LogFile file, long openedIn) {
      this.path = path;
      this.file = file;
      this.openedIn = openedIn;
    }

    private void checkAlive() throws IOException {
      if (generation.get() != openedIn) {
        throw new IOException("simulated crash: " + path + " was open when the machine lost power");
      }
    }

    @Override
    public void write(ByteBuffer src, long position) throws IOException {
      checkAlive();
      beforeWrite.run();
      writes.incrementAndGet();
      if (failNextWrite.compareAndSet(true, false)) {
        throw new IOException("injected write failure on " + path);
      }
      file.write(src, position);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      checkAlive();
      return file.read(dst, position);
    }

    @Override
    public long size() throws IOException {
      checkAlive();
      return file.size();
    }

    @Override
    public void truncate(long size) throws IOException {
      checkAlive();
      file.truncate(size);
      AtomicLong durable = durableSizes.get(path);
      if (durable != null) {
        durable.accumulateAndGet(size, Math::min);
      }
    }

    @Override
    public void force() throws IOException {
      checkAlive();
      beforeForce.run();
      forces.incrementAndGet();
      if (failNextForce.compareAndSet(true, false)) {
        throw new IOException("injected force failure on " + path);
      }
      long size = file.size();
      file.force();
      AtomicLong durable = durableSizes.computeIfAbsent(path, k -> new AtomicLong());
      durable.accumulateAndGet(size, Math::max);
    }

    @Override
    public ByteBuffer map(long position, long size) throws IOException {
      checkAlive();
      return file.map(position, size);
    }

    @Override
    public void close() throws IOException {
      file.close();
    }
  }
}
