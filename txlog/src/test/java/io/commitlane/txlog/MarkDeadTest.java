package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.values;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A record made dead by the caller (its write failed and its abort marker could not be written):
 * readers never return it and the committed watermark does not stall on it, in every append
 * mode; nothing is written, so a reopened log recovers it as a live record.
 */
class MarkDeadTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(AppendMode.class)
  void aDeadRecordIsHiddenAndTheWatermarkPassesIt(AppendMode mode) {
    LogSettings settings = LogSettings.defaults().withAppendMode(mode);
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      log.finish(append(log, 1, "a"), () -> 1);
      long dead = append(log, 2, "dead");
      long c = append(log, 3, "c");
      log.markDead(dead);
      long committed = log.finish(c, () -> 2);
      assertEquals(List.of("a", "c"), values(readAll(log)));
      assertEquals(List.of("a", "c"), values(readAll(log, ReadRequest.fromStart().includeUncommitted(true))));
      assertEquals(0, log.stats().uncommittedCount(), "nothing left uncommitted");
      assertEquals(log.committedWatermark(), committed);
      log.markDead(dead); // no longer awaiting finish: nothing changes
      assertEquals(List.of("a", "c"), values(readAll(log)));
    }
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      assertEquals(List.of("a", "dead", "c"), values(readAll(log)), "no marker was written: the caller keeps it dead");
    }
  }
}
