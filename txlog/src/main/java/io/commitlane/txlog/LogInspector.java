package io.commitlane.txlog;

import io.commitlane.txlog.fs.JdkFileSystem;
import io.commitlane.txlog.fs.LogFile;
import io.commitlane.txlog.fs.LogFileSystem;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Validates a log directory without changing it and prints every frame: position, timestamp,
 * transaction id, flags, entry count and sizes, abort markers, and every corrupt frame. It judges
 * bytes exactly as recovery and readers do (same scanner).
 *
 * <pre>
 * java -cp commitlane-txlog.jar io.commitlane.txlog.LogInspector &lt;db&gt;/txlog/&lt;name&gt;
 * </pre>
 *
 * Exit code 0: clean (a torn tail is reported but is not corruption); 1: corrupt frames found;
 * 2: bad arguments or unreadable directory.
 */
public final class LogInspector {
  public static final int CLEAN = 0;
  public static final int CORRUPT = 1;
  public static final int BAD_ARGUMENTS = 2;

  private LogInspector() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** {@link #main} without the exit: returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length != 1 || args[0].startsWith("-")) {
      err.println("usage: LogInspector <log-directory>   (e.g. <db>/txlog/<name>)");
      return BAD_ARGUMENTS;
    }
    Path dir = Path.of(args[0]);
    if (!Files.isDirectory(dir)) {
      err.println("not a directory: " + dir);
      return BAD_ARGUMENTS;
    }
    try {
      InspectionReport report = inspect(dir, JdkFileSystem.INSTANCE, out);
      return report.clean() ? CLEAN : CORRUPT;
    } catch (IOException | UncheckedIOException e) {
      err.println("cannot read " + dir + ": " + e.getMessage());
      return BAD_ARGUMENTS;
    }
  }

  /** Inspects {@code directory} on the default file system, printing nothing. */
  public static InspectionReport inspect(Path directory) throws IOException {
    return inspect(directory, JdkFileSystem.INSTANCE, null);
  }

  /**
   * Inspects {@code directory}, printing one line per frame and a summary to {@code out} (if not
   * null).
   */
  public static InspectionReport inspect(Path directory, LogFileSystem fs, PrintStream out)
      throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path file : fs.list(directory)) {
      if (Segment.parseFileName(file.getFileName().toString()) >= 0) {
        files.add(file);
      }
    }
    long[] records = {0};
    long[] aborts = {0};
    long[] torn = {0};
    List<CorruptFrame> corrupt = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      Path path = files.get(i);
      boolean last = i == files.size() - 1;
      long number = Segment.parseFileName(path.getFileName().toString());
      try (LogFile file = fs.open(path, false)) {
        long size = file.size();
        print(out, "segment " + path.getFileName() + " (" + size + " bytes)");
        if (size < SegmentHeader.BYTES) {
          if (last) {
            torn[0] += size;
            print(out, "  torn segment header (" + size + " bytes; removed at next open)");
          } else {
            corrupt.add(report(out, new CorruptFrame(LogPosition.of(number, 0),
                LogPosition.of(number, size), "segment header cut short")));
          }
          continue;
        }
        ByteBuffer bytes = ByteBuffer.allocate((int) size);
        file.read(bytes, 0);
        SegmentHeader header = SegmentHeader.decode(bytes, (int) size);
        if (header == null || header.segmentNumber != number) {
          corrupt.add(report(out, new CorruptFrame(LogPosition.of(number, 0),
              LogPosition.of(number, SegmentHeader.BYTES), "segment header invalid")));
        } else {
          print(out, "  header: segment " + header.segmentNumber + ", created "
              + header.createdMillis);
        }
        SegmentScanner.scan(bytes, SegmentHeader.BYTES, (int) size, new SegmentScanner.Visitor() {
          @Override
          public void frame(ByteBuffer buf, int offset, int length) {
            long position = LogPosition.of(number, offset);
            int flags = Frame.flagsAt(buf, offset);
            long ts = Frame.timestamp(buf, offset);
            ByteBuffer payload = Frame.payload(buf, offset);
            if (Frame.type(flags) == Frame.TYPE_ABORT) {
              aborts[0]++;
              print(out, "  " + LogPosition.toString(position) + " ts=" + ts + " ABORT of "
                  + LogPosition.toString(RecordCodec.abortedPosition(payload)));
              return;
            }
            if (Frame.type(flags) != Frame.TYPE_RECORD) {
              print(out, "  " + LogPosition.toString(position) + " unknown frame type "
                  + Frame.type(flags) + " (" + length + " bytes)");
              return;
            }
            records[0]++;
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

          @Override
          public void corrupt(int offset, int resume, String reason) {
            corrupt.add(report(out, new CorruptFrame(LogPosition.of(number, offset),
                LogPosition.of(number, resume), reason)));
          }

          @Override
          public void tail(int offset, String reason) {
            if (last) {
              torn[0] += size - offset;
              print(out, "  torn tail at " + LogPosition.toString(LogPosition.of(number, offset))
                  + ": " + (size - offset) + " bytes (" + reason + "; cut off at next open)");
            } else {
              corrupt.add(report(out, new CorruptFrame(LogPosition.of(number, offset),
                  LogPosition.of(number, size), reason + " (to the end of the segment)")));
            }
          }
        });
      }
    }
    long flushed = new FlushedPositionFile(fs, directory).readOnly();
    InspectionReport report = new InspectionReport(files.size(), records[0], aborts[0],
        List.copyOf(corrupt), torn[0], flushed);
    print(out, "flushed position " + LogPosition.toString(flushed));
    print(out, (report.clean() ? "CLEAN: " : "CORRUPT: ") + files.size() + " segments, "
        + records[0] + " records, " + aborts[0] + " abort markers, " + corrupt.size()
        + " corrupt frames, " + torn[0] + " torn tail bytes");
    return report;
  }

  private static CorruptFrame report(PrintStream out, CorruptFrame frame) {
    print(out, "  CORRUPT " + frame);
    return frame;
  }

  private static void print(PrintStream out, String line) {
    if (out != null) {
      out.println(line);
    }
  }
}
