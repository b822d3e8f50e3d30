package io.commitlane.txlog.internal.fs;

import io.commitlane.annotation.InternalApi;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The default {@link LogFileSystem}: {@link FileChannel}s on the platform's file system. */
@InternalApi
public final class JdkFileSystem implements LogFileSystem {

  /** A shared instance; the class has no state. */
  public static final JdkFileSystem INSTANCE = new JdkFileSystem();

  @Override
  public LogFile open(Path file, boolean writable) throws IOException {
    OpenOption[] options =
        writable
            ? new OpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE}
            : new OpenOption[] {StandardOpenOption.READ};
    return new ChannelFile(file, options);
  }

  @Override
  public LogFile create(Path file) throws IOException {
    ChannelFile created =
        new ChannelFile(
            file,
            new OpenOption[] {
              StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE
            });
    // A reopen after an interrupt must not try to create the file again.
    created.reopenOptions = new OpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE};
    return created;
  }

  @Override
  public List<Path> list(Path directory) throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> entries = Files.list(directory)) {
      entries.filter(Files::isRegularFile).sorted().forEach(files::add);
    }
    return files;
  }

  @Override
  public List<Path> listOthers(Path directory) throws IOException {
    List<Path> others = new ArrayList<>();
    try (Stream<Path> entries = Files.list(directory)) {
      entries.filter(p -> !Files.isRegularFile(p)).sorted().forEach(others::add);
    }
    return others;
  }

  @Override
  public Path realPath(Path directory) throws IOException {
    return directory.toRealPath();
  }

  @Override
  public java.io.Closeable lockDirectory(Path directory) throws IOException {
    FileChannel channel = FileChannel.open(directory.resolve("LOCK"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE);
    java.nio.channels.FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (java.nio.channels.OverlappingFileLockException e) {
      // Someone else in this JVM holds it. Closing this descriptor would release their lock
      // (POSIX locks belong to the process, any close drops them): leave it open.
      throw new IOException("the writer lock of " + directory + " is already held in this process", e);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      return null;
    }
    return channel::close; // closing the channel releases the lock
  }

  @Override
  public void createDirectories(Path directory) throws IOException {
    Files.createDirectories(directory);
  }

  @Override
  public boolean exists(Path path) {
    return Files.exists(path);
  }

  @Override
  public long size(Path file) throws IOException {
    return Files.size(file);
  }

  @Override
  public void delete(Path file) throws IOException {
    Files.deleteIfExists(file);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  @Override
  public void forceDirectory(Path directory) throws IOException {
    // An interrupted caller (any appender may be one) would close the channel mid-force and fail
    // a write that is otherwise fine: force with the status cleared, and restore it afterwards.
    boolean interrupted = Thread.interrupted();
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (AccessDeniedException e) {
      // Windows cannot open a directory as a channel; its directory updates are not deferred.
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * A file channel that survives interrupts. An interrupt during NIO I/O closes the channel for
   * every thread ({@link ClosedByInterruptException}); a log shared by many callers must not break
   * because one of them was interrupted, so the channel is reopened and the (idempotent,
   * positional) operation retried, and the interrupt status is restored afterwards.
   */
  private static final class ChannelFile implements LogFile {
    private final Path path;
    private OpenOption[] reopenOptions;
    private volatile FileChannel channel;
    private volatile boolean closed;

    ChannelFile(Path path, OpenOption[] options) throws IOException {
      this.path = path;
      this.reopenOptions = options;
      this.channel = FileChannel.open(path, options);
    }

    private interface Operation<T> {
      T run(FileChannel channel) throws IOException;
    }

    private <T> T retrying(Operation<T> operation) throws IOException {
      boolean interrupted = false;
      try {
        while (true) {
          FileChannel current = channel;
          try {
            return operation.run(current);
          } catch (ClosedChannelException e) {
            if (closed) {
              throw e;
            }
            interrupted |= Thread.interrupted();
            reopen(current);
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }

    private synchronized void reopen(FileChannel broken) throws IOException {
      if (closed) {
        throw new ClosedChannelException();
      }
      if (channel == broken && !broken.isOpen()) {
        channel = FileChannel.open(path, reopenOptions);
      }
    }

    @Override
    public void write(ByteBuffer src, long position) throws IOException {
      int start = src.position();
      retrying(
          ch -> {
            src.position(start);
            long at = position;
            while (src.hasRemaining()) {
              at += ch.write(src, at);
            }
            return null;
          });
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      int start = dst.position();
      return retrying(
          ch -> {
            dst.position(start);
            int total = 0;
            while (dst.hasRemaining()) {
              int n = ch.read(dst, position + total);
              if (n < 0) {
                break;
              }
              total += n;
            }
            return total;
          });
    }

    @Override
    public long size() throws IOException {
      return retrying(FileChannel::size);
    }

    @Override
    public void truncate(long size) throws IOException {
      retrying(ch -> ch.truncate(size));
    }

    @Override
    public void force() throws IOException {
      retrying(
          ch -> {
            ch.force(false);
            return null;
          });
    }

    @Override
    public ByteBuffer map(long position, long size) throws IOException {
      return retrying(ch -> ch.map(FileChannel.MapMode.READ_ONLY, position, size));
    }

    @Override
    public synchronized void close() throws IOException {
      closed = true;
      channel.close();
    }

    @Override
    public String toString() {
      return path.toString();
    }
  }
}
