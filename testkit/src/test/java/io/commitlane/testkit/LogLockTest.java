package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.TransactionLogException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A transaction log has one writer across processes, not only within one. */
class LogLockTest {
  @TempDir Path dir;

  @Test
  void aLogOpenInAnotherProcessIsRefusedUntilThatProcessDies() throws Exception {
    Path log = dir.resolve("orders");
    CrashHarness.Child child = CrashHarness.of(LogLockWorkload.class, log).start();
    try {
      child.awaitMarker("open", Duration.ofSeconds(60));
      TransactionLogException refused = assertThrows(TransactionLogException.class,
          () -> TransactionLog.open(log, LogSettings.defaults()));
      assertTrue(refused.getMessage().contains("another process"), refused.getMessage());
    } finally {
      child.kill();
    }
    try (TransactionLog reopened = TransactionLog.open(log, LogSettings.defaults())) {
      assertTrue(reopened.damage().isEmpty());
    }
  }
}
