package io.commitlane.txlog.internal.segment;

import io.commitlane.txlog.LogCopy;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.internal.fs.LogFile;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies a live log's segments into another directory up to a position that is a frame boundary
 * (everything below it is in the files), so the copy never ends in a torn frame, and gives the
 * copy the flushed position the caller vouches for. The caller takes the segment list under the
 * log's rotation lock (the append lock in the serialized mode) and lets it go before the copy, so
 * appends wait only for the list. Segments are copied newest first: purge deletes the oldest
 * first, so a segment purged meanwhile ends the copy with no hole in what was copied (the copy
 * then starts later, as if purge had run before it).
 */
public final class LogCopier {
  private static final int CHUNK = 1 << 20;

  private LogCopier() {}

  /** A segment to copy: its file and how many of its bytes. */
  record Part(Path path, long length) {}

  /** Taken under the rotation lock: the segments holding positions below {@code end}, oldest first. */
  public static List<Part> parts(Iterable<Segment> segments, long end) {
    long lastSegment = LogPosition.segment(end);
    List<Part> out = new ArrayList<>();
    for (Segment s : segments) {
      if (s.number <= lastSegment && !s.deleted) {
        out.add(new Part(s.path, s.number == lastSegment ? LogPosition.offset(end) : s.end));
      }
    }
    return out;
  }

  public static LogCopy copy(LogFileSystem fs, List<Part> parts, long end, Path target, long flushedPosition, Path reuseFrom)
      throws IOException {
    fs.createDirectories(target);
    long bytes = 0;
    ByteBuffer buf = ByteBuffer.allocate(CHUNK);
    for (int i = parts.size() - 1; i >= 0; i--) {
      Part p = parts.get(i);
      Path to = target.resolve(p.path().getFileName().toString());
      if (i < parts.size() - 1 && reuseFrom != null && linked(p, reuseFrom.resolve(to.getFileName().toString()), to)) {
        continue; // a sealed segment an earlier copy holds whole: shared, not copied again
      }
      try {
        bytes += copyPrefix(fs, p.path(), to, p.length(), buf);
      } catch (java.nio.file.NoSuchFileException e) {
        break; // purged meanwhile, and every older one with it
      }
    }
    new FlushedPositionFile(fs, target).write(flushedPosition);
    fs.forceDirectory(target);
    return new LogCopy(target, flushedPosition, end, bytes);
  }

  /**
   * Links {@code to} to {@code earlier} if that is a copy of the same sealed segment: as long, and
   * the same header and first block (the header records when the segment was created, so a log
   * deleted and begun again never matches). Returns whether it linked.
   */
  private static boolean linked(Part p, Path earlier, Path to) {
    try {
      if (!java.nio.file.Files.isRegularFile(earlier, java.nio.file.LinkOption.NOFOLLOW_LINKS)
          || java.nio.file.Files.size(earlier) != p.length()) {
        return false;
      }
      int head = (int) Math.min(4096, p.length());
      byte[] a = new byte[head];
      byte[] b = new byte[head];
      try (var in = java.nio.file.Files.newInputStream(p.path()); var old = java.nio.file.Files.newInputStream(earlier)) {
        if (in.readNBytes(a, 0, head) != head || old.readNBytes(b, 0, head) != head || !java.util.Arrays.equals(a, b)) {
          return false;
        }
      }
      java.nio.file.Files.createLink(to, earlier);
      return true;
    } catch (IOException | UnsupportedOperationException e) {
      return false; // another file system, or links not allowed: copy it
    }
  }

  private static long copyPrefix(LogFileSystem fs, Path from, Path to, long length, ByteBuffer buf) throws IOException {
    try (LogFile in = fs.open(from, false); LogFile out = fs.create(to)) {
      long done = 0;
      while (done < length) {
        buf.clear().limit((int) Math.min(CHUNK, length - done));
        int n = in.read(buf, done);
        if (n <= 0) {
          throw new IOException(from + " ended at " + done + " bytes, before the " + length + " the log holds");
        }
        buf.flip();
        out.write(buf, done);
        done += n;
      }
      out.force();
      return done;
    }
  }
}
