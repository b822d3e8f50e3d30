package io.commitlane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLog;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line: subcommands run, bad input exits 2. */
class CliTest {
  @TempDir
  Path dir;

  @Test
  void inspectReportsACleanLog() {
    Path logDir = dir.resolve("txlog/main");
    try (TransactionLog log = TransactionLog.open(logDir, LogSettings.defaults())) {
      long p = log.append(1, 1, List.of(ByteBuffer.wrap(new byte[] {1, 2, 3})), null);
      log.finish(p, () -> 0);
    }
    assertEquals(0, Main.run("inspect", logDir.toString()));
  }

  @Test
  void inspectWithoutADirectoryIsABadArgument() {
    assertEquals(2, Main.run("inspect"));
  }

  @Test
  void memoryRunsTinyWithABusyDatabase() {
    assertEquals(0, Main.run("memory", "--databases", "1", "--runs", "1", "--busy", "1x4", "--busy-seconds", "0.2"));
  }

  @Test
  void storageAndTxlogBenchesRunTiny() {
    assertEquals(0, Main.run("storage", "--runs", "1", "--warmup", "0", "--seconds", "0.2", "--threads", "1", "--keys", "1",
        "--dir", dir.resolve("s").toString()));
    assertEquals(0, Main.run("txlog", "--runs", "1", "--warmup", "0", "--seconds", "0.2", "--writers", "1",
        "--entry-sizes", "100", "--durability", "process", "--dir", dir.resolve("t").toString()));
  }

  @Test
  void readsRunTinyWithEveryPeerAndTheMixedWorkload() {
    assertEquals(0, Main.run("reads", "--keys", "1000", "--runs", "1", "--warmup", "0", "--seconds", "0.1",
        "--rows", "get-random,multi-get-64,range-50,range-50-writes,full-scan", "--dir", dir.resolve("r").toString()));
  }

  @Test
  void badFlagsExitWithTwo() {
    assertEquals(2, Main.run("storage", "--threads", "0"));
    assertEquals(2, Main.run("storage", "--variants", "nonsense"));
    assertEquals(2, Main.run("txlog", "--durability", "sometimes"));
    assertEquals(2, Main.run("storage", "--no-such-flag"));
  }
}
