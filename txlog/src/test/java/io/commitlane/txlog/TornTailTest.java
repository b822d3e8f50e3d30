package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.segmentFile;
import static io.commitlane.txlog.TestLogs.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem.LostWrites;
import io.commitlane.txlog.internal.segment.Frame;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** A torn last record, cut at every byte, is truncated; everything before it survives. */
@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class TornTailTest {
  @Parameter AppendMode appendMode;

  @TempDir Path root;

  @Test
  void tornLastRecordAtEveryByteOffsetIsCutAndTheLogStaysAppendable() throws IOException {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = LogSettings.defaults().withAppendMode(appendMode).withFileSystem(fs);
    // Learn where the last record starts and ends.
    long lastStart;
    long fileEnd;
    Path probe = root.resolve("probe");
    try (TransactionLog log = TransactionLog.open(probe, settings)) {
      writeThree(log);
      lastStart = LogPosition.offset(log.committedWatermark()) - frameBytes("third");
      fileEnd = LogPosition.offset(log.committedWatermark());
    }
    assertEquals(fileEnd, Files.size(segmentFile(probe, 0)));

    for (long cut = lastStart; cut < fileEnd; cut++) {
      Path dir = root.resolve("cut-" + cut);
      try (TransactionLog log = TransactionLog.open(dir, settings)) {
        writeThree(log);
      }
      fs.cut(segmentFile(dir, 0), cut);
      try (TransactionLog log = TransactionLog.open(dir, settings)) {
        assertEquals(List.of("first", "second"), values(readAll(log)), "cut at " + cut);
        assertEquals(cut - lastStart, log.tornBytesTruncated());
        assertEquals(lastStart, Files.size(segmentFile(dir, 0)), "truncated to the last valid byte");
        assertEquals(LogPosition.of(0, lastStart), log.committedWatermark());
        long p = append(log, 4, "fourth");
        assertEquals(LogPosition.of(0, lastStart), p, "appends continue at the valid end");
        log.finish(p, () -> 0);
      }
      try (TransactionLog log = TransactionLog.open(dir, settings)) {
        assertEquals(List.of("first", "second", "fourth"), values(readAll(log)));
        assertTrue(log.corruptFrames().isEmpty(), "a torn tail is not corruption");
      }
    }
  }

  @Test
  void unsyncedBytesDroppedByAPowerLossAreGoneAndSyncedOnesStay() throws IOException {
    for (LostWrites mode : LostWrites.values()) {
      Path dir = root.resolve(mode.name());
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      LogSettings settings =
          LogSettings.defaults().withAppendMode(appendMode).withFileSystem(fs).withDurability(Durability.FSYNC);
      TransactionLog log = TransactionLog.open(dir, settings);
      long a = append(log, 1, "synced");
      log.finish(a, () -> 0);
      log.awaitDurable(a);
      long b = append(log, 2, "lost");
      log.finish(b, () -> 0);
      fs.crash(mode);
      TestLogs.abandon(log);

      try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
        assertEquals(List.of("synced"), values(readAll(reopened)), mode.name());
        assertTrue(reopened.corruptFrames().isEmpty(), mode.name());
        long c = append(reopened, 3, "after");
        reopened.finish(c, () -> 0);
        reopened.awaitDurable(c);
        assertEquals(List.of("synced", "after"), values(readAll(reopened)));
      }
    }
  }

  @Test
  void aSegmentWhoseCreationNeverReachedTheDiskIsDropped() throws IOException {
    for (LostWrites mode : LostWrites.values()) {
      Path dir = root.resolve("process-" + mode.name());
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      LogSettings settings = LogSettings.defaults().withAppendMode(appendMode).withFileSystem(fs); // PROCESS: no fsync
      TransactionLog log = TransactionLog.open(dir, settings);
      log.finish(append(log, 1, "never synced"), () -> 0);
      fs.crash(mode);
      TestLogs.abandon(log);
      try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
        assertEquals(List.of(), readAll(reopened));
        long p = append(reopened, 2, "fresh");
        reopened.finish(p, () -> 0);
        assertEquals(List.of("fresh"), values(readAll(reopened)));
      }
    }
  }

  private static void writeThree(TransactionLog log) {
    for (String v : List.of("first", "second", "third")) {
      log.finish(append(log, v.length(), v), () -> 0);
    }
  }

  /** Frame size of a record written by {@link TestLogs#append} with {@code value}. */
  private static long frameBytes(String value) {
    return Frame.HEADER_BYTES + 8 + 4 + 4 + value.length() + 4 + ("w:" + value).length();
  }
}
