package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.segmentFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** Retention deletes old flushed segments only: never unflushed ones, never the active one. */
@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class PurgeTest {
  @Parameter AppendMode mode;

  @TempDir Path dir;

  @Test
  void keepsSegmentsAboveTheFlushedPositionAndTheActiveOne() {
    MutableClock clock = new MutableClock(1_000_000_000L);
    LogSettings settings = LogSettings.defaults().withAppendMode(mode).withClock(clock).withMaxSegmentBytes(4096)
        .withRetention(Duration.ofDays(3));
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      List<Long> positions = new ArrayList<>();
      long sequence = 0;
      for (int i = 0; i < 40; i++) { // 500-byte records: 7 per segment, 6 segments
        long p = log.append(i, clock.millis(), List.of(ByteBuffer.allocate(500)), null);
        long seq = ++sequence;
        log.finish(p, () -> seq);
        positions.add(p);
      }
      int segments = log.stats().segmentFiles();
      assertEquals(6, segments);
      // Flush holds everything up to the middle of segment 2.
      long firstOfSegment2 = positions.stream().filter(p -> LogPosition.segment(p) == 2)
          .findFirst().orElseThrow();
      int index = positions.indexOf(firstOfSegment2) + 2;
      log.onFlushCompleted(index); // sequences are 1-based: records 0..index-1 are flushed
      assertEquals(positions.get(index), log.flushedPosition());

      // Nothing is old yet.
      assertEquals(new PurgeResult(0, 0, 0, false), log.purgeExpired());

      clock.advance(Duration.ofDays(4));
      PurgeResult result = log.purgeExpired();
      assertEquals(2, result.segmentsDeleted(), result.toString());
      assertEquals(3, result.segmentsKeptUnflushed(), "segments 2, 3 and 4 hold unflushed records");
      assertTrue(result.activeSegmentKept());
      assertTrue(result.bytesDeleted() > 0);
      assertFalse(Files.exists(segmentFile(dir, 0)));
      assertFalse(Files.exists(segmentFile(dir, 1)));
      for (int s = 2; s <= 5; s++) {
        assertTrue(Files.exists(segmentFile(dir, s)), "segment " + s);
      }
      assertEquals(3, log.stats().filesKeptUnflushed());

      // Readers start at the oldest retained record; replay data is all still there.
      List<LogRecord> left = readAll(log);
      assertEquals(firstOfSegment2, left.get(0).position());
      assertEquals(positions.get(index),
          readAll(log, ReadRequest.fromLastFlushed()).get(0).position());

      // Once everything is flushed, all but the active segment can go.
      log.onFlushCompleted(sequence);
      PurgeResult all = log.purgeExpired();
      assertEquals(3, all.segmentsDeleted());
      assertEquals(0, all.segmentsKeptUnflushed());
      assertTrue(all.activeSegmentKept());
      assertEquals(1, log.stats().segmentFiles());
    }
  }
}
