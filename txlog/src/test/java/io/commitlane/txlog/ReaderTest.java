package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.txns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Start, end and resume options of readers, across sealed (mapped) and active segments. */
@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class ReaderTest {
  @Parameter AppendMode mode;

  @TempDir Path dir;
  private final List<Long> positions = new ArrayList<>();
  private TransactionLog log;

  @BeforeEach
  void writeTwentyRecordsOverSeveralSegments() {
    log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode).withMaxSegmentBytes(4096));
    for (long txn = 0; txn < 20; txn++) {
      // Timestamps 100, 110, ..., 290; 900-byte records: 4 per segment.
      long p = log.append(txn, 100 + txn * 10, List.of(ByteBuffer.allocate(900)), null);
      log.finish(p, () -> 0);
      positions.add(p);
    }
    assertTrue(log.stats().segmentFiles() >= 5);
  }

  @org.junit.jupiter.api.AfterEach
  void close() {
    log.close();
  }

  @Test
  void fromPositionInclusiveAndExclusive() {
    assertEquals(range(7, 20), txns(readAll(log, ReadRequest.fromPosition(positions.get(7)))));
    assertEquals(range(8, 20),
        txns(readAll(log, ReadRequest.fromPosition(positions.get(7)).exclusive())));
  }

  @Test
  void fromTimestampInclusiveExclusiveAndUntil() {
    assertEquals(range(5, 20), txns(readAll(log, ReadRequest.fromTimestamp(150))));
    assertEquals(range(6, 20), txns(readAll(log, ReadRequest.fromTimestamp(150).exclusive())));
    assertEquals(range(6, 20), txns(readAll(log, ReadRequest.fromTimestamp(151))));
    assertEquals(range(0, 20), txns(readAll(log, ReadRequest.fromTimestamp(0))));
    assertEquals(List.of(), txns(readAll(log, ReadRequest.fromTimestamp(10_000))));
    try (LogReader reader = log.reader(ReadRequest.fromTimestamp(150).untilTimestamp(200))) {
      List<Long> got = new ArrayList<>();
      for (LogRecord r = reader.next(); r != null; r = reader.next()) {
        got.add(r.transactionId());
      }
      assertEquals(range(5, 11), got);
      assertTrue(reader.isFinished());
      assertEquals(positions.get(11), reader.position(), "stopped at the first record past the end");
    }
  }

  @Test
  void resumesFromItsPositionAcrossReaders() {
    List<Long> got = new ArrayList<>();
    long resume;
    try (LogReader reader = log.reader(ReadRequest.fromStart())) {
      for (int i = 0; i < 9; i++) {
        got.add(reader.next().transactionId());
      }
      resume = reader.position();
    }
    try (LogReader reader = log.reader(ReadRequest.fromPosition(resume))) {
      for (LogRecord r = reader.next(); r != null; r = reader.next()) {
        got.add(r.transactionId());
      }
    }
    assertEquals(range(0, 20), got);
  }

  @Test
  void endBeforeBoundsTheRead() {
    assertEquals(range(0, 12), txns(readAll(log, ReadRequest.fromStart().endBefore(positions.get(12)))));
  }

  @Test
  void payloadsAreReadOnlySlicesThatOutliveTheReader() {
    List<LogRecord> records = readAll(log);
    ByteBuffer entry = records.get(0).entries().get(0);
    assertTrue(entry.isReadOnly());
    assertThrows(ReadOnlyBufferException.class, () -> entry.put(0, (byte) 1));
    assertEquals(900, records.get(19).entries().get(0).remaining());
    assertNull(records.get(19).writes());
  }

  @Test
  void readersFailOnceTheLogIsClosed() {
    LogReader reader = log.reader(ReadRequest.fromStart());
    log.close();
    assertThrows(LogClosedException.class, reader::next);
    assertThrows(LogClosedException.class, () -> log.reader(ReadRequest.fromStart()));
    assertTrue(log.whenCommittedBeyond(Long.MAX_VALUE - 1).isCompletedExceptionally());
  }

  private static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }
}
