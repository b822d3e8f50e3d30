package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.segmentFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class LogInspectorTest {
  @Parameter AppendMode mode;

  @TempDir Path dir;

  private long[] writeThree() {
    long[] positions = new long[3];
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      for (int i = 0; i < 3; i++) {
        positions[i] = log.append(40 + i, 1000 + i, i, TestLogs.entries("k" + i, "value" + i),
            TestLogs.bytes("writes"));
      }
      log.finish(positions[0], () -> 1);
      log.finish(positions[2], () -> 2);
      log.abort(positions[1]);
    }
    return positions;
  }

  @Test
  void cleanLogExitsZeroAndListsEveryRecord() {
    long[] positions = writeThree();
    Output out = new Output();
    Output err = new Output();
    assertEquals(0, LogInspector.run(new String[] {dir.toString()}, out.stream, err.stream));
    String text = out.text();
    assertTrue(text.contains(LogPosition.toString(positions[0]) + " ts=1000 txn=40 flags=0x0"
        + " entries=2 sizes=[2,6] writes=6B"), text);
    assertTrue(text.contains("ABORT of " + LogPosition.toString(positions[1])), text);
    assertTrue(text.contains("CLEAN: 1 segments, 3 records, 1 abort markers, 0 corrupt frames"),
        text);
  }

  @Test
  void corruptFrameExitsOneAndIsReported() throws IOException {
    long[] positions = writeThree();
    new FaultInjectingFileSystem().flipByte(segmentFile(dir, 0), LogPosition.offset(positions[1]) + 5);
    InspectionReport report = LogInspector.inspect(dir);
    assertEquals(1, report.corruptFrames().size());
    assertEquals(positions[1], report.corruptFrames().get(0).position());
    assertEquals(positions[2], report.corruptFrames().get(0).resumePosition());
    assertEquals(2, report.records());

    Output out = new Output();
    assertEquals(1, LogInspector.run(new String[] {dir.toString()}, out.stream, new Output().stream));
    assertTrue(out.text().contains("CORRUPT " + LogPosition.toString(positions[1])), out.text());
  }

  @Test
  void tornTailIsReportedButIsNotCorruption() throws IOException {
    long[] positions = writeThree();
    new FaultInjectingFileSystem().cut(segmentFile(dir, 0), LogPosition.offset(positions[2]) + 10);
    InspectionReport report = LogInspector.inspect(dir);
    assertTrue(report.clean());
    assertEquals(10, report.tornTailBytes());
    assertEquals(0, LogInspector.run(new String[] {dir.toString()}, new Output().stream,
        new Output().stream));
  }

  @Test
  void badArgumentsExitTwo() {
    Output err = new Output();
    assertEquals(2, LogInspector.run(new String[0], new Output().stream, err.stream));
    assertTrue(err.text().contains("usage"));
    assertEquals(2, LogInspector.run(new String[] {dir.resolve("missing").toString()},
        new Output().stream, new Output().stream));
    assertEquals(2, LogInspector.run(new String[] {"a", "b"}, new Output().stream,
        new Output().stream));
  }

  @Test
  void aDirectoryThatHoldsNoLogIsSaidToBeNoneNotClean() throws Exception {
    java.nio.file.Path plain = java.nio.file.Files.createDirectories(dir.resolve("plain"));
    java.nio.file.Files.writeString(plain.resolve("CURRENT"), "MANIFEST-000001");
    Output err = new Output();
    assertEquals(2, LogInspector.run(new String[] {plain.toString()}, new Output().stream, err.stream));
    assertTrue(err.text().contains("not a transaction-log directory"), err.text());
  }

  @Test
  void aDatabaseDirectoryIsInspectedLogByLog() throws Exception {
    java.nio.file.Path db = dir.resolve("db");
    for (String name : java.util.List.of("orders", "payments")) {
      try (TransactionLog log = TransactionLog.open(db.resolve("txlog").resolve(name), LogSettings.defaults())) {
        log.finish(TestLogs.append(log, 1, name), () -> 0);
      }
    }
    Output out = new Output();
    assertEquals(0, LogInspector.run(new String[] {db.toString()}, out.stream, new Output().stream));
    assertTrue(out.text().contains("log " + db.resolve("txlog").resolve("orders")), out.text());
    assertTrue(out.text().contains("log " + db.resolve("txlog").resolve("payments")), out.text());
  }

  private static final class Output {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    String text() {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }
}
