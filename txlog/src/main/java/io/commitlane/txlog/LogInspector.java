package io.commitlane.txlog;

import io.commitlane.txlog.internal.fs.JdkFileSystem;
import io.commitlane.txlog.internal.fs.LogFile;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import io.commitlane.txlog.internal.segment.FlushedPositionFile;
import io.commitlane.txlog.internal.segment.Frame;
import io.commitlane.txlog.internal.segment.LogFiles;
import io.commitlane.txlog.internal.segment.RecordCodec;
import io.commitlane.txlog.internal.segment.Segment;
import io.commitlane.txlog.internal.segment.SegmentChain;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import io.commitlane.txlog.internal.segment.SegmentScanner;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Validates log directories without changing them and prints every frame: position, timestamp,
 * transaction id, flags, entry count and sizes, abort markers, every corrupt frame, missing,
 * truncated and unreadable segments (judged exactly as open judges them) and entries that are not
 * the log's. Given a database directory (or its {@code txlog} directory) it inspects every log in
 * it. It reads every file defensively: nothing in a directory makes it fail.
 *
 * <pre>
 * java -cp commitlane-txlog.jar io.commitlane.txlog.LogInspector &lt;db&gt;[/txlog[/&lt;name&gt;]]
 * </pre>
 *
 * Exit code 0: clean (a torn tail is reported but is not damage); 1: damage or foreign entries
 * found; 2: bad arguments, or not a log (nor a database holding logs).
 */
public final class LogInspector {
  public static final int CLEAN = 0;
  public static final int CORRUPT = 1;
  public static final int BAD_ARGUMENTS = 2;
  private static final String LOGS = "txlog";

  private LogInspector() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** {@link #main} without the exit: returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length != 1 || args[0].startsWith("-")) {
      err.println("usage: LogInspector <log-directory | database-directory>   (e.g. <db>/txlog/<name>, or <db>)");
      return BAD_ARGUMENTS;
    }
    Path dir = Path.of(args[0]);
    if (!Files.isDirectory(dir)) {
      err.println("not a directory: " + dir);
      return BAD_ARGUMENTS;
    }
    try {
      List<Path> logs = logsIn(dir);
      if (logs.isEmpty()) {
        err.println(dir + " is not a transaction-log directory (no segment files, no flushed position),"
            + " nor a database or txlog directory holding logs");
        return BAD_ARGUMENTS;
      }
      boolean clean = true;
      for (Path log : logs) {
        if (logs.size() > 1 || !log.equals(dir)) {
          out.println("log " + log);
        }
        clean &= inspect(log, JdkFileSystem.INSTANCE, out).clean();
      }
      return clean ? CLEAN : CORRUPT;
    } catch (IOException | UncheckedIOException e) {
      err.println("cannot read " + dir + ": " + e.getMessage());
      return BAD_ARGUMENTS;
    }
  }

  /**
   * The log directories {@code dir} stands for: the logs under its {@code txlog} directory if it
   * has one (a database directory), else itself if it looks like a log, else the logs in it (a
   * {@code txlog} directory).
   */
  static List<Path> logsIn(Path dir) throws IOException {
    boolean database = Files.isDirectory(dir.resolve(LOGS));
    if (!database && looksLikeLog(dir)) {
      return List.of(dir);
    }
    Path root = database ? dir.resolve(LOGS) : dir;
    List<Path> logs = new ArrayList<>();
    try (Stream<Path> entries = Files.list(root)) {
      for (Path p : entries.sorted().toList()) {
        if (Files.isDirectory(p) && looksLikeLog(p)) {
          logs.add(p);
        }
      }
    }
    return logs;
  }

  /**
   * Whether {@code dir} holds a segment or a flushed-position file. A {@code LOCK} alone does not
   * count: RocksDB's directory has one too.
   */
  private static boolean looksLikeLog(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString())
          .anyMatch(n -> Segment.parseFileName(n) >= 0 || (LogFiles.isSideFile(n) && !n.equals(LogFiles.LOCK)));
    }
  }

  /** Inspects {@code directory} on the default file system, printing nothing. */
  public static InspectionReport inspect(Path directory) throws IOException {
    return inspect(directory, JdkFileSystem.INSTANCE, null);
  }

  /**
   * Inspects the log in {@code directory}, printing one line per frame and a summary to {@code
   * out} (if not null).
   */
  public static InspectionReport inspect(Path directory, LogFileSystem fs, PrintStream out)
      throws IOException {
    List<Path> files = new ArrayList<>();
    List<Path> foreign = new ArrayList<>();
    for (Path file : fs.list(directory)) {
      String name = file.getFileName().toString();
      if (Segment.parseFileName(name) >= 0) {
        files.add(file);
      } else if (!LogFiles.isSideFile(name)) {
        foreign.add(file);
      }
    }
    List<LogDamage> damage = new ArrayList<>();
    List<CorruptFrame> corrupt = new ArrayList<>();
    List<SegmentChain.Link> links = new ArrayList<>();
    long highest = -1;
    for (Path other : fs.listOthers(directory)) {
      if (!other.getFileName().toString().equals(FlushedPositionFile.NAME)) { // flushed-position damage, below
        foreign.add(other);
      }
      long number = Segment.parseFileName(other.getFileName().toString());
      if (number >= 0) {
        highest = Math.max(highest, number);
        links.add(new SegmentChain.Link(number, SegmentHeader.UNKNOWN_PREDECESSOR, 0, false));
        damage.add(new LogDamage(LogDamage.Kind.UNREADABLE_SEGMENT, LogPosition.of(number, 0),
            LogPosition.of(number + 1, SegmentHeader.BYTES), other.getFileName() + " is not a regular file"));
      }
    }
    for (Path f : files) {
      highest = Math.max(highest, Segment.parseFileName(f.getFileName().toString()));
    }
    long[] counts = new long[3]; // records, abort markers, torn tail bytes
    for (Path path : files) {
      long number = Segment.parseFileName(path.getFileName().toString());
      inspectSegment(fs, path, number, number == highest, out, counts, damage, corrupt, links);
    }
    FlushedPositionFile.Stored stored = new FlushedPositionFile(fs, directory).readOnly();
    long flushed = stored.position();
    links.sort(Comparator.comparingLong(SegmentChain.Link::number));
    for (LogDamage d : SegmentChain.check(links, stored)) {
      damage.add(report(out, d));
    }
    damage.sort(Comparator.comparingLong(LogDamage::position));
    for (Path f : foreign) {
      print(out, "  FOREIGN " + f.getFileName() + (Files.isDirectory(f) ? " (a directory)" : "")
          + ": not part of the log (left alone)");
    }
    InspectionReport report = new InspectionReport(files.size(), counts[0], counts[1],
        List.copyOf(corrupt), List.copyOf(damage), List.copyOf(foreign), counts[2], flushed);
    print(out, stored.known() ? "flushed position " + LogPosition.toString(flushed)
        : "flushed position unknown: " + stored.problem());
    print(out, (report.clean() ? "CLEAN: " : "DAMAGED: ") + files.size() + " segments, "
        + counts[0] + " records, " + counts[1] + " abort markers, " + corrupt.size()
        + " corrupt frames, " + (damage.size() - corrupt.size()) + " missing, truncated or unreadable segment"
        + " ranges, " + foreign.size() + " foreign entries, " + counts[2] + " torn tail bytes");
    return report;
  }

  private static void inspectSegment(LogFileSystem fs, Path path, long number, boolean last,
      PrintStream out, long[] counts, List<LogDamage> damage, List<CorruptFrame> corrupt,
      List<SegmentChain.Link> links) {
    try (LogFile file = fs.open(path, false)) {
      long size = file.size();
      print(out, "segment " + path.getFileName() + " (" + size + " bytes)");
      if (size > LogSettings.MAX_SEGMENT_BYTES + SegmentHeader.BYTES) {
        unreadable(out, number, path + " is larger than any log writes (" + size + " bytes)", damage, links);
        return;
      }
      if (size < SegmentHeader.BYTES) {
        if (last) {
          counts[2] += size;
          print(out, "  torn segment header (" + size + " bytes; removed at next open)");
        } else {
          addCorrupt(out, new CorruptFrame(LogPosition.of(number, 0), LogPosition.of(number, size),
              "segment header cut short"), damage, corrupt);
          links.add(new SegmentChain.Link(number, SegmentHeader.UNKNOWN_PREDECESSOR, size, true));
        }
        return;
      }
      ByteBuffer bytes = read(file, size);
      SegmentHeader header = SegmentHeader.decode(bytes, (int) size);
      if (header == null || header.segmentNumber != number) {
        addCorrupt(out, new CorruptFrame(LogPosition.of(number, 0),
            LogPosition.of(number, SegmentHeader.BYTES), "segment header invalid"), damage, corrupt);
      } else {
        print(out, "  header: segment " + header.segmentNumber + ", created " + header.createdMillis
            + (header.previousEnd >= 0 ? ", previous segment ends at byte " + header.previousEnd : ""));
      }
      long[] end = {size};
      SegmentScanner.scan(bytes, SegmentHeader.BYTES, (int) size, new SegmentScanner.Visitor() {
        @Override
        public void frame(ByteBuffer buf, int offset, int length) {
          printFrame(out, buf, number, offset, length, counts);
        }

        @Override
        public void corrupt(int offset, int resume, String reason) {
          addCorrupt(out, new CorruptFrame(LogPosition.of(number, offset),
              LogPosition.of(number, resume), reason), damage, corrupt);
        }

        @Override
        public void tail(int offset, String reason) {
          if (last) {
            counts[2] += size - offset;
            end[0] = offset;
            print(out, "  torn tail at " + LogPosition.toString(LogPosition.of(number, offset))
                + ": " + (size - offset) + " bytes (" + reason + "; cut off at next open)");
          } else {
            addCorrupt(out, new CorruptFrame(LogPosition.of(number, offset),
                LogPosition.of(number, size), reason + " (to the end of the segment)"), damage, corrupt);
          }
        }
      });
      links.add(new SegmentChain.Link(number,
          header == null ? SegmentHeader.UNKNOWN_PREDECESSOR : header.previousEnd, end[0], true));
    } catch (IOException | RuntimeException e) {
      unreadable(out, number, path + " cannot be read: " + e, damage, links);
    }
  }

  /** The whole file: mapped when possible (no copy), else read. */
  private static ByteBuffer read(LogFile file, long size) throws IOException {
    try {
      return file.map(0, size).duplicate();
    } catch (IOException | UnsupportedOperationException e) {
      ByteBuffer bytes = ByteBuffer.allocate((int) size);
      file.read(bytes, 0);
      return bytes;
    }
  }

  private static void printFrame(PrintStream out, ByteBuffer buf, long number, int offset, int length,
      long[] counts) {
    long position = LogPosition.of(number, offset);
    int flags = Frame.flagsAt(buf, offset);
    long ts = Frame.timestamp(buf, offset);
    ByteBuffer payload = Frame.payload(buf, offset);
    if (Frame.type(flags) == Frame.TYPE_ABORT) {
      counts[1]++;
      print(out, "  " + LogPosition.toString(position) + " ts=" + ts + " ABORT of "
          + LogPosition.toString(RecordCodec.abortedPosition(payload)));
      return;
    }
    if (Frame.type(flags) != Frame.TYPE_RECORD) {
      print(out, "  " + LogPosition.toString(position) + " unknown frame type "
          + Frame.type(flags) + " (" + length + " bytes)");
      return;
    }
    counts[0]++;
    if (out == null) {
      return;
    }
    LogRecord r = RecordCodec.decode(position, ts, Frame.userFlags(flags), payload);
    StringBuilder sizes = new StringBuilder();
    for (ByteBuffer e : r.entries()) {
      sizes.append(sizes.length() == 0 ? "" : ",").append(e.remaining());
    }
    out.println("  " + LogPosition.toString(position) + " ts=" + ts + " txn="
        + r.transactionId() + " flags=0x" + Integer.toHexString(r.flags()) + " entries="
        + r.entries().size() + " sizes=[" + sizes + "] writes="
        + (r.writes() == null ? "none" : r.writes().remaining() + "B") + " frame="
        + length + "B");
  }

  private static void unreadable(PrintStream out, long number, String detail, List<LogDamage> damage,
      List<SegmentChain.Link> links) {
    links.add(new SegmentChain.Link(number, SegmentHeader.UNKNOWN_PREDECESSOR, 0, false));
    damage.add(report(out, new LogDamage(LogDamage.Kind.UNREADABLE_SEGMENT, LogPosition.of(number, 0),
        LogPosition.of(number + 1, SegmentHeader.BYTES), detail)));
  }

  private static void addCorrupt(PrintStream out, CorruptFrame frame, List<LogDamage> damage,
      List<CorruptFrame> corrupt) {
    print(out, "  CORRUPT " + frame);
    corrupt.add(frame);
    damage.add(new LogDamage(LogDamage.Kind.CORRUPT_FRAME, frame.position(), frame.resumePosition(),
        frame.reason()));
  }

  private static LogDamage report(PrintStream out, LogDamage d) {
    print(out, "  DAMAGE " + d);
    return d;
  }

  private static void print(PrintStream out, String line) {
    if (out != null) {
      out.println(line);
    }
  }
}
