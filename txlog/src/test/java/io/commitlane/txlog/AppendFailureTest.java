package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** I/O failures surface as typed errors and leave the log consistent. */
class AppendFailureTest {
  @TempDir Path dir;

  @Test
  void aFailedWriteThrowsLogIOExceptionAndTheLogStaysUsable() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = LogSettings.defaults().withFileSystem(fs);
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      long a = append(log, 1, "a");
      log.finish(a, () -> 1);
      fs.failNextWrite();
      LogIOException e = assertThrows(LogIOException.class, () -> append(log, 2, "lost"));
      assertTrue(e.getMessage().contains("still usable"), e.getMessage());
      assertEquals(0, log.stats().uncommittedCount(), "a failed append leaves no position behind");
      long c = append(log, 3, "c");
      log.finish(c, () -> 2);
      assertEquals(List.of("a", "c"), values(readAll(log)));
    }
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      assertEquals(List.of("a", "c"), values(readAll(log)));
      assertTrue(log.corruptFrames().isEmpty());
    }
  }

  @Test
  void aFailedSegmentCreationIsReportedAndRetried() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = LogSettings.defaults().withFileSystem(fs);
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      fs.failNextWrite(); // the segment header write
      assertThrows(LogIOException.class, () -> append(log, 1, "a"));
      long p = append(log, 2, "b");
      log.finish(p, () -> 1);
      assertEquals(List.of("b"), values(readAll(log)));
    }
  }

  @Test
  void appendsAfterCloseFailWithLogClosedException() {
    TransactionLog log = TransactionLog.open(dir, LogSettings.defaults());
    long p = append(log, 1, "a");
    log.close();
    assertThrows(LogClosedException.class, () -> append(log, 2, "b"));
    assertThrows(LogClosedException.class, () -> log.finish(p, () -> 1));
    log.onFlushCompleted(5); // ignored after close
  }

  @Test
  void aDirectoryCanBeOpenOncePerProcess() {
    TransactionLog log = TransactionLog.open(dir, LogSettings.defaults());
    assertThrows(TransactionLogException.class,
        () -> TransactionLog.open(dir.resolve(".").resolve(""), LogSettings.defaults()));
    log.close();
    TransactionLog.open(dir, LogSettings.defaults()).close();
  }

  @Test
  void anInterruptedAppenderDoesNotBreakTheLogForOthers() {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults())) {
      Thread.currentThread().interrupt();
      long p = append(log, 1, "interrupted caller");
      assertTrue(Thread.interrupted(), "the interrupt status is preserved");
      log.finish(p, () -> 1);
      long q = append(log, 2, "next caller");
      log.finish(q, () -> 2);
      assertEquals(List.of("interrupted caller", "next caller"), values(readAll(log)));
    }
  }
}
