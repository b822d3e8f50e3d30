package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The flushed position persists, never moves back, and bounds crash replay. */
@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class FlushedPositionTest {
  @Parameter AppendMode mode;

  @TempDir Path dir;

  @Test
  void persistsAcrossReopenAndReplayOffersExactlyTheUnflushedNonAbortedRecords() {
    List<Long> positions = new ArrayList<>();
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      assertEquals(LogPosition.START, log.flushedPosition());
      long sequence = 0;
      for (int i = 0; i < 6; i++) {
        positions.add(append(log, i, "r" + i));
      }
      for (int i = 0; i < 6; i++) {
        long seq = ++sequence;
        if (i == 4) {
          log.abort(positions.get(i));
        } else {
          log.finish(positions.get(i), () -> seq);
        }
      }
      log.onFlushCompleted(2); // holds r0 (1) and r1 (2)
      assertEquals(positions.get(2), log.flushedPosition());
      log.onFlushCompleted(1);
      assertEquals(positions.get(2), log.flushedPosition(), "never moves backwards");
    }
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      assertEquals(positions.get(2), log.flushedPosition(), "persisted");
      List<String> first = replay(log);
      assertEquals(List.of("r2", "r3", "r5"), first, "from the flushed position, without r4");
      assertEquals(first, replay(log), "replay is idempotent");
      assertEquals(List.of("r2", "r3", "r5"), values(readAll(log, ReadRequest.fromLastFlushed())));
      // New records after open are not part of the replay range.
      log.finish(append(log, 9, "new"), () -> 100);
      assertEquals(first, replay(log));
      // A flush before any new pair changes nothing; after it, the position moves on.
      log.onFlushCompleted(99);
      assertEquals(positions.get(2), log.flushedPosition());
      log.onFlushCompleted(100);
      assertEquals(log.committedWatermark(), log.flushedPosition());
    }
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      assertEquals(List.of(), replay(log));
    }
  }

  /**
   * A directory where the flushed-position file belongs is flushed-position damage, not a log that
   * cannot be opened: an empty one is replaced when the position is written again; one that holds
   * something is not the log's to delete, and writing the position says to move it away.
   */
  @Test
  void aDirectoryWhereTheFlushedPositionBelongsIsDamageOfItsKind() throws IOException {
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      log.finish(append(log, 1, "r1"), () -> 1);
    }
    Path file = dir.resolve("flushed-position");
    java.nio.file.Files.delete(file);
    java.nio.file.Files.createDirectories(file.resolve("kept"));
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      assertEquals(List.of(LogDamage.Kind.FLUSHED_POSITION), log.damage().stream().map(LogDamage::kind).toList());
      assertTrue(log.damage().get(0).toString().contains("is not a regular file"), log.damage().toString());
      assertEquals(List.of(), log.foreignEntries(), "damage, not a stranger");
      assertEquals(List.of("r1"), replay(log), "replay offers every record: where it may start is unknown");
      LogIOException refused = org.junit.jupiter.api.Assertions.assertThrows(LogIOException.class,
          () -> log.markFlushedThrough(Long.MAX_VALUE));
      assertTrue(refused.getMessage().contains("move it away"), refused.getMessage());
      assertTrue(java.nio.file.Files.isDirectory(file.resolve("kept")), "left alone");
      java.nio.file.Files.delete(file.resolve("kept"));
      log.markFlushedThrough(Long.MAX_VALUE);
    }
    assertTrue(java.nio.file.Files.isRegularFile(file), "the empty directory was replaced");
    try (TransactionLog log = TransactionLog.open(dir, LogSettings.defaults().withAppendMode(mode))) {
      assertEquals(List.of(), log.damage());
      assertEquals(List.of(), replay(log));
    }
  }

  @Test
  void newRecordsLandAboveAFlushedPositionThatOutlivedTheLogTail() throws IOException {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    LogSettings settings = LogSettings.defaults().withAppendMode(mode).withFileSystem(fs); // PROCESS: tail unsynced
    TransactionLog log = TransactionLog.open(dir, settings);
    long p = append(log, 1, "flushed by RocksDB, lost from the log");
    log.finish(p, () -> 1);
    log.onFlushCompleted(1); // the flushed-position file is forced; the segment is not
    long flushed = log.flushedPosition();
    fs.crash();
    TestLogs.abandon(log);

    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      assertEquals(flushed, reopened.flushedPosition());
      long q = append(reopened, 2, "after the crash");
      assertTrue(q >= flushed, "new record " + LogPosition.toString(q)
          + " must not hide below the flushed position " + LogPosition.toString(flushed));
      reopened.finish(q, () -> 2);
      assertEquals(List.of("after the crash"),
          values(readAll(reopened, ReadRequest.fromLastFlushed())));
    }
    try (TransactionLog reopened = TransactionLog.open(dir, settings)) {
      assertEquals(List.of("after the crash"), replay(reopened));
    }
  }

  private static List<String> replay(TransactionLog log) {
    List<String> out = new ArrayList<>();
    log.replay(r -> out.add(TestLogs.text(r.entries().get(0))));
    return out;
  }
}
