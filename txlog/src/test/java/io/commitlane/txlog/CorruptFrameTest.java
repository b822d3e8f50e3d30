package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.segmentFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import io.commitlane.txlog.internal.segment.Frame;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** A bad frame in the middle is one lost record, not the end of the log. */
@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class CorruptFrameTest {
  @Parameter AppendMode mode;

  private static final List<String> VALUES = List.of("r0", "r1", "r2-the-middle", "r3", "r4");

  @TempDir Path root;

  @Test
  void aFlippedByteAnywhereInAMiddleFrameCostsExactlyThatRecord() throws IOException {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = LogSettings.defaults().withAppendMode(mode).withFileSystem(fs)
        .withRecoveryMode(RecoveryMode.SKIP_CORRUPTED);
    List<Long> positions = writeFive(root.resolve("probe"), settings);
    long bad = positions.get(2);
    long resume = positions.get(3);
    long frameLength = LogPosition.offset(resume) - LogPosition.offset(bad);

    for (long i = 0; i < frameLength; i++) {
      Path dir = root.resolve("flip-" + i);
      assertEquals(positions, writeFive(dir, settings));
      fs.flipByte(segmentFile(dir, 0), LogPosition.offset(bad) + i);

      try (TransactionLog log = TransactionLog.open(dir, settings)) {
        assertEquals(1, log.stats().corruptFrames(), "flip at " + i);
        assertEquals(List.of(new CorruptFrame(bad, resume, log.corruptFrames().get(0).reason())),
            log.corruptFrames());
        try (LogReader reader = log.reader(ReadRequest.fromStart())) {
          assertEquals("r0", TestLogs.text(reader.next().entries().get(0)));
          assertEquals("r1", TestLogs.text(reader.next().entries().get(0)));
          CorruptLogFrameException e = assertThrows(CorruptLogFrameException.class, reader::next);
          assertEquals(bad, e.position(), "flip at " + i);
          assertEquals(resume, e.resumePosition(), "flip at " + i);
          assertEquals(resume, reader.position());
          assertEquals("r3", TestLogs.text(reader.next().entries().get(0)));
          assertEquals("r4", TestLogs.text(reader.next().entries().get(0)));
          assertNull(reader.next());
        }
        // Point-in-time replay (the default) stops before it; skip-corrupted replay skips it the
        // way readers do and reports it.
        assertEquals(List.of(new LogDamage(LogDamage.Kind.CORRUPT_FRAME, bad, resume,
            log.corruptFrames().get(0).reason())), log.replayDamage());
        assertEquals(bad, log.replayStop());
        List<String> replayed = new ArrayList<>();
        List<Long> reported = new ArrayList<>();
        log.replay(new RecordConsumer() {
          @Override
          public void accept(LogRecord record) {
            replayed.add(TestLogs.text(record.entries().get(0)));
          }

          @Override
          public void onCorruptFrame(CorruptLogFrameException corruption) {
            reported.add(corruption.position());
          }
        });
        assertEquals(List.of("r0", "r1", "r3", "r4"), replayed);
        assertEquals(List.of(bad), reported);
        // The log is still appendable after the corrupt frame.
        long p = append(log, 9, "r5");
        log.finish(p, () -> 0);
        try (LogReader reader = log.reader(ReadRequest.fromPosition(resume))) {
          assertEquals(List.of("r3", "r4", "r5"), TestLogs.values(List.of(reader.next(),
              reader.next(), reader.next())));
        }
      }
      // Recovery did not "repair" the bad frame away: it is reported again next time.
      try (TransactionLog log = TransactionLog.open(dir, settings)) {
        assertEquals(1, log.corruptFrames().size());
      }
    }
  }

  @Test
  void corruptionAfterOpenIsCaughtByTheReaderToo() throws IOException {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = LogSettings.defaults().withAppendMode(mode).withFileSystem(fs);
    Path dir = root.resolve("live");
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      List<Long> positions = new ArrayList<>();
      for (String v : VALUES) {
        long p = append(log, 1, v);
        log.finish(p, () -> 0);
        positions.add(p);
      }
      // Flip the payload of the middle record while the log is open (active segment, read path).
      fs.flipByte(segmentFile(dir, 0), LogPosition.offset(positions.get(2)) + Frame.HEADER_BYTES + 3);
      try (LogReader reader = log.reader(ReadRequest.fromPosition(positions.get(1)))) {
        assertEquals("r1", TestLogs.text(reader.next().entries().get(0)));
        CorruptLogFrameException e = assertThrows(CorruptLogFrameException.class, reader::next);
        assertEquals(positions.get(2), e.position());
        assertEquals(positions.get(3), e.resumePosition());
        assertEquals("r3", TestLogs.text(reader.next().entries().get(0)));
      }
    }
  }

  @Test
  void aTornTailInAnOlderSegmentIsOneCorruptFrameNotTheEndOfTheLog() throws IOException {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = LogSettings.defaults().withAppendMode(mode).withFileSystem(fs).withMaxSegmentBytes(4096);
    Path dir = root.resolve("older");
    List<Long> positions = new ArrayList<>();
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      for (int i = 0; i < 8; i++) { // 1000-byte records: 3 per segment
        long p = log.append(i, i, List.of(java.nio.ByteBuffer.allocate(1000)), null);
        log.finish(p, () -> 0);
        positions.add(p);
      }
    }
    int inSegment0 = (int) positions.stream().filter(p -> LogPosition.segment(p) == 0).count();
    assertTrue(inSegment0 >= 2 && inSegment0 < positions.size());
    long lastOfSegment0 = positions.get(inSegment0 - 1);
    long cutAt = LogPosition.offset(lastOfSegment0) + 100;
    fs.cut(segmentFile(dir, 0), cutAt);
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      assertEquals(List.of(new CorruptFrame(lastOfSegment0, LogPosition.of(0, cutAt),
          log.corruptFrames().get(0).reason())), log.corruptFrames());
      try (LogReader reader = log.reader(ReadRequest.fromStart())) {
        for (int i = 0; i < inSegment0 - 1; i++) {
          assertEquals(i, reader.next().transactionId());
        }
        CorruptLogFrameException e = assertThrows(CorruptLogFrameException.class, reader::next);
        assertEquals(lastOfSegment0, e.position());
        for (int i = inSegment0; i < 8; i++) {
          assertEquals(i, reader.next().transactionId(), "segment 1 is still read");
        }
        assertNull(reader.next());
      }
    }
  }

  private static List<Long> writeFive(Path dir, LogSettings settings) {
    List<Long> positions = new ArrayList<>();
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      for (int i = 0; i < VALUES.size(); i++) {
        long p = append(log, i, VALUES.get(i));
        log.finish(p, () -> 0);
        positions.add(p);
      }
    }
    return positions;
  }
}
