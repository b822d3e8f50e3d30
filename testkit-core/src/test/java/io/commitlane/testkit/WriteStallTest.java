package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.RocksDbTuning;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteStallTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private static byte[] value(int i) {
    byte[] v = new byte[80 * 1024]; // more than a 64 KiB memtable: each write fills one
    java.util.Arrays.fill(v, (byte) i);
    return v;
  }

  @Test
  void holdsTheStoppedWriterUntilClosed() throws Exception {
    RocksDbTuning small = RocksDbTuning.defaults().withWriteBuffers(64 * 1024, 2);
    ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "stalled-writer"));
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withSettings(CommitlaneSettings.defaults()
        .withRocksDbTuning(small)))) {
      WriteStall stall = WriteStall.force(db);
      assertThrows(StageTimeoutException.class, () -> stall.awaitWritesStopped(Duration.ofMillis(5)), "nothing written yet");
      CompletableFuture<Void> writes = CompletableFuture.runAsync(() -> {
        for (int i = 0; i < 3; i++) {
          db.put(new byte[] {(byte) i}, value(i));
        }
      }, writer);
      stall.awaitWritesStopped(WAIT);
      stall.awaitBlockedWriters("stalled-writer"::equals, 1, WAIT);
      assertTrue(WriteStall.blockedWriters().contains("stalled-writer"));
      assertFalse(writes.isDone());
      stall.close();
      writes.get(30, TimeUnit.SECONDS);
      assertFalse(stall.writesStopped());
      assertFalse(WriteStall.blockedWriters().contains("stalled-writer"));
      assertArrayEquals(value(2), db.get(new byte[] {2}));
    } finally {
      writer.shutdownNow();
    }
  }
}
