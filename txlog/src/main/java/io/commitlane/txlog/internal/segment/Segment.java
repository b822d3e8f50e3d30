package io.commitlane.txlog.internal.segment;

import io.commitlane.txlog.internal.fs.LogFile;
import io.commitlane.txlog.internal.append.LogSyncedEvent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One segment file of a log: its handle, its extent and what readers and purge need to know about
 * it. The active segment grows by appends (under the log's append lock); once sealed its {@link
 * #end} never changes again and readers map it whole.
 */
public final class Segment {
  public final long number;
  public final Path path;
  public final long createdMillis;
  private final LogFile file;

  /** The offset after the last complete frame. */
  public volatile long end;
  /** Set (after {@link #end} is final) when a later segment took over appends. */
  public volatile boolean sealed;
  /** Timestamp of the first record, or {@link Long#MIN_VALUE} while it has none. */
  volatile long firstTimestamp = Long.MIN_VALUE;
  /** Largest record timestamp, or {@link Long#MIN_VALUE} while it has none. */
  volatile long maxTimestamp = Long.MIN_VALUE;
  /** Set when purge deleted the file. */
  public volatile boolean deleted;

  private ByteBuffer mapping;
  private boolean closed;

  public Segment(long number, Path path, long createdMillis, LogFile file, long end) {
    this.number = number;
    this.path = path;
    this.createdMillis = createdMillis;
    this.file = file;
    this.end = end;
  }

  public static String fileName(long number) {
    return String.format("%020d.txlog", number);
  }

  /** The segment number a file name encodes, or -1 if it is not a segment file name. */
  public static long parseFileName(String name) {
    if (name.length() != 26 || !name.endsWith(".txlog")) {
      return -1;
    }
    for (int i = 0; i < 20; i++) {
      if (!Character.isDigit(name.charAt(i))) {
        return -1;
      }
    }
    return Long.parseLong(name.substring(0, 20));
  }

  public LogFile file() {
    return file;
  }

  public void noteRecord(long timestamp) {
    if (firstTimestamp == Long.MIN_VALUE) {
      firstTimestamp = timestamp;
    }
    if (timestamp > maxTimestamp) {
      maxTimestamp = timestamp;
    }
  }

  /** The time a record in it was last written, for retention: max record timestamp or creation. */
  long newestMillis() {
    long max = maxTimestamp;
    return max == Long.MIN_VALUE ? createdMillis : max;
  }

  /**
   * The whole sealed segment mapped read-only, shared by readers (each takes a duplicate), or
   * {@code null} if mapping is not possible.
   */
  public synchronized ByteBuffer mapping() {
    if (mapping == null && sealed && !closed) {
      try {
        mapping = file.map(0, end);
      } catch (IOException | UnsupportedOperationException e) {
        // A file layer that cannot map (or a failed map) is not an error: readers fall back to
        // copying the segment into read buffers.
        return null;
      }
    }
    return mapping;
  }

  /** Adopts a mapping made during recovery. */
  public synchronized void adoptMapping(ByteBuffer whole) {
    if (whole != null && whole.capacity() == end) {
      mapping = whole;
    }
  }

  /** Forces the file unless it was closed (a sealed segment is forced before it is closed). */
  public synchronized void force() throws IOException {
    if (!closed) {
      LogSyncedEvent event = LogSyncedEvent.beginIfEnabled();
      try {
        file.force();
      } catch (IOException | RuntimeException e) {
        LogSyncedEvent.endAndCommit(event, path, false);
        throw e;
      }
      LogSyncedEvent.endAndCommit(event, path, true);
    }
  }

  public synchronized void close() throws IOException {
    if (!closed) {
      closed = true;
      file.close();
    }
  }
}
