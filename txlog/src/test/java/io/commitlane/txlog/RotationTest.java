package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.segmentFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.internal.segment.Frame;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class RotationTest {
  @Parameter AppendMode mode;

  @TempDir Path dir;

  @Test
  void rotatesBeforeARecordWouldExceedMaxSegmentBytesAndNeverSplitsOne() throws IOException {
    LogSettings settings = LogSettings.defaults().withAppendMode(mode).withMaxSegmentBytes(4096);
    List<Long> positions = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      for (int i = 0; i < 60; i++) {
        int size = 100 + (i * 37) % 900; // varied, so records end at arbitrary offsets
        sizes.add(size);
        long p = log.append(i, i, List.of(ByteBuffer.allocate(size)), null);
        positions.add(p);
        log.finish(p, () -> 0);
      }
      assertTrue(log.stats().segmentFiles() > 5, "expected several segments");
    }
    for (int i = 0; i < positions.size(); i++) {
      long p = positions.get(i);
      long frameEnd = LogPosition.offset(p) + Frame.HEADER_BYTES + 8 + 4 + 4 + sizes.get(i) + 4;
      assertTrue(frameEnd <= 4096, "record " + i + " crosses the segment limit");
      // The whole frame is inside its own segment file.
      assertTrue(frameEnd <= Files.size(segmentFile(dir, LogPosition.segment(p))));
      if (i > 0 && LogPosition.segment(p) != LogPosition.segment(positions.get(i - 1))) {
        assertEquals(SegmentHeader.BYTES, LogPosition.offset(p), "a new segment starts clean");
      }
    }
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      List<LogRecord> read = readAll(log);
      assertEquals(60, read.size());
      for (int i = 0; i < 60; i++) {
        assertEquals(positions.get(i), read.get(i).position());
        assertEquals(sizes.get(i), read.get(i).entries().get(0).remaining());
      }
    }
  }

  @Test
  void rotatesAtTheFirstAppendAfterTheSegmentGotOld() {
    MutableClock clock = new MutableClock(1_000_000);
    LogSettings settings =
        LogSettings.defaults().withAppendMode(mode).withClock(clock).withMaxSegmentAge(Duration.ofMinutes(10));
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      long p1 = append(log, 1, "a");
      clock.advance(Duration.ofMinutes(9));
      long p2 = append(log, 2, "b");
      assertEquals(LogPosition.segment(p1), LogPosition.segment(p2));
      clock.advance(Duration.ofMinutes(1));
      long p3 = append(log, 3, "c");
      assertEquals(LogPosition.segment(p1) + 1, LogPosition.segment(p3));
      assertEquals(SegmentHeader.BYTES, LogPosition.offset(p3));
    }
    // The age survives a reopen: it comes from the segment header, not from the open time.
    clock.advance(Duration.ofMinutes(10));
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      long p4 = append(log, 4, "d");
      assertEquals(2, LogPosition.segment(p4));
      log.finish(p4, () -> 0);
      assertEquals(List.of("a", "b", "c", "d"), TestLogs.values(readAll(log)));
    }
  }

  @Test
  void reopenedLogKeepsAppendingToItsLastSegmentWhileItHasRoom() {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      log.finish(append(log, 1, "a"), () -> 0);
    }
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      long p = append(log, 2, "b");
      assertEquals(0, LogPosition.segment(p));
      log.finish(p, () -> 0);
      assertEquals(List.of("a", "b"), TestLogs.values(readAll(log)));
    }
  }

  @Test
  void aRecordLargerThanASegmentIsRejected() {
    LogSettings settings = LogSettings.defaults().withAppendMode(mode).withMaxSegmentBytes(4096);
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      assertThrows(RecordTooLargeException.class,
          () -> log.append(1, 1, List.of(ByteBuffer.allocate(5000)), null));
      long p = append(log, 2, "fits");
      log.finish(p, () -> 0);
      assertEquals(1, readAll(log).size());
    }
  }
}
