package io.commitlane.txlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The records replay would offer, found without opening the log: past the flushed position, with writes, not aborted. */
class UnflushedRecordsTest {
  @TempDir Path dir;

  private static long append(TransactionLog log, long txn, boolean withWrites) {
    long p = log.append(txn, txn, List.of(ByteBuffer.wrap(new byte[] {1})), withWrites ? ByteBuffer.wrap(new byte[] {2}) : null);
    log.finish(p, () -> 0);
    return p;
  }

  @Test
  void theRecordsWithWritesFromTheFlushedPositionOnAndNotAborted() throws Exception {
    Path logDir = dir.resolve("orders");
    long flushedThrough;
    long kept;
    long later;
    // Small segments: the records span several, and those wholly below the flushed position are skipped.
    LogSettings settings = LogSettings.defaults().withMaxSegmentBytes(io.commitlane.txlog.internal.settings.LogKeys.MAX_SEGMENT_SIZE.min());
    try (TransactionLog log = TransactionLog.open(logDir, settings)) {
      for (int i = 0; i < 200; i++) {
        append(log, i, true);
      }
      flushedThrough = append(log, 200, true);
      log.markFlushedThrough(flushedThrough); // every record below it is held by RocksDB
      kept = flushedThrough;
      append(log, 201, false); // logged without its writes: replay restores nothing of it
      long aborted = log.append(202, 202, List.of(ByteBuffer.wrap(new byte[] {1})), ByteBuffer.wrap(new byte[] {2}));
      log.abort(aborted);
      later = append(log, 203, true);
    }
    assertArrayEquals(new long[] {kept, later}, UnflushedRecords.positions(logDir));
    try (var files = Files.list(logDir)) {
      org.junit.jupiter.api.Assertions.assertTrue(files.count() > 3, "the records span several segments");
    }
    assertArrayEquals(new long[0], UnflushedRecords.positions(Files.createDirectories(dir.resolve("empty"))));
  }
}
