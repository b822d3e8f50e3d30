package io.commitlane.testkit;

import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLog;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** Opens the transaction log in {@code dir}, reports {@code open}, and holds it until killed. */
public final class LogLockWorkload implements CrashWorkload {
  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults())) {
      reporter.reached("open");
      new CountDownLatch(1).await();
    }
  }
}
