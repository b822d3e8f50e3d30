package io.commitlane.txlog;

import static io.commitlane.txlog.TestLogs.append;
import static io.commitlane.txlog.TestLogs.entries;
import static io.commitlane.txlog.TestLogs.readAll;
import static io.commitlane.txlog.TestLogs.segmentFile;
import static io.commitlane.txlog.TestLogs.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Damage other than a torn tail is found at open (deleted, replaced, truncated, oversized
 * segments; corrupt frames), reported by open and by the inspector alike, and handled as the
 * recovery mode says: point-in-time replay stops before it, absolute-consistency refuses to open,
 * skip-corrupted replays around it.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(AppendMode.class)
class LogDamageTest {
  @Parameter AppendMode mode;

  @TempDir Path dir;

  /** Nine records, three per 4 KiB segment (segments 0, 1, 2), none flushed. */
  private List<Long> writeThreeSegments(LogSettings settings) {
    List<Long> positions = new ArrayList<>();
    try (TransactionLog log = TransactionLog.open(dir, settings)) {
      for (int i = 0; i < 9; i++) {
        long p = log.append(i, i, List.of(ByteBuffer.wrap(("r" + i).getBytes(StandardCharsets.UTF_8)),
            ByteBuffer.allocate(1100)), null);
        log.finish(p, () -> 0);
        positions.add(p);
      }
    }
    for (int i = 0; i < 9; i++) {
      assertEquals(i / 3, LogPosition.segment(positions.get(i)), "record " + i);
    }
    return positions;
  }

  private LogSettings settings() {
    return LogSettings.defaults().withAppendMode(mode).withMaxSegmentBytes(4096);
  }

  private static List<String> replayed(TransactionLog log) {
    List<String> out = new ArrayList<>();
    log.replay(r -> out.add(TestLogs.text(r.entries().get(0))));
    return out;
  }

  @Test
  void aDeletedMiddleSegmentIsDamageAndPointInTimeReplayStopsBeforeIt() throws IOException {
    writeThreeSegments(settings());
    Files.delete(segmentFile(dir, 1));
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(1, log.damage().size(), log.damage().toString());
      LogDamage d = log.damage().get(0);
      assertEquals(LogDamage.Kind.MISSING_SEGMENTS, d.kind());
      assertEquals(LogPosition.of(1, 0), d.position());
      assertEquals(List.of("r0", "r1", "r2"), replayed(log));
    }
    try (TransactionLog log = TransactionLog.open(dir, settings().withRecoveryMode(RecoveryMode.SKIP_CORRUPTED))) {
      assertEquals(List.of("r0", "r1", "r2", "r6", "r7", "r8"), replayed(log));
    }
    LogDamagedException refused = assertThrows(LogDamagedException.class,
        () -> TransactionLog.open(dir, settings().withRecoveryMode(RecoveryMode.ABSOLUTE_CONSISTENCY)));
    assertTrue(refused.getMessage().contains(LogPosition.toString(LogPosition.of(1, 0))), refused.getMessage());
    assertEquals(LogDamage.Kind.MISSING_SEGMENTS, refused.damage().get(0).kind());
    // Refused means untouched and not held open: a later open in another mode works.
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(1, log.damage().size());
    }
    InspectionReport report = LogInspector.inspect(dir);
    assertEquals(log(dir).damage(), report.damage(), "open and inspect judge alike");
    assertEquals(LogInspector.CORRUPT, LogInspector.run(new String[] {dir.toString()}, quiet(), quiet()));
  }

  private static InspectionReport log(Path dir) throws IOException {
    return LogInspector.inspect(dir);
  }

  @Test
  void aDeletedFirstSegmentHoldingUnflushedRecordsIsDamageButAPurgedOneIsNot() throws IOException {
    List<Long> positions = writeThreeSegments(settings());
    Files.delete(segmentFile(dir, 0));
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(LogDamage.Kind.MISSING_SEGMENTS, log.damage().get(0).kind());
      assertEquals(LogPosition.START, log.replayStop(), "nothing can be replayed before the hole");
      assertEquals(List.of(), replayed(log));
      // Everything in the missing segment is flushed now: it is no longer damage.
      log.markFlushedThrough(positions.get(3));
    }
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(List.of(), log.damage());
      assertEquals(List.of("r3", "r4", "r5", "r6", "r7", "r8"), replayed(log));
    }
    assertTrue(LogInspector.inspect(dir).clean());
  }

  @Test
  void aSegmentCutShortBeforeItsSuccessorBeganIsDamage() throws IOException {
    List<Long> positions = writeThreeSegments(settings());
    try (RandomAccessFile f = new RandomAccessFile(segmentFile(dir, 1).toFile(), "rw")) {
      f.setLength(LogPosition.offset(positions.get(5))); // r5, the last record of segment 1, is gone
    }
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(1, log.damage().size(), log.damage().toString());
      assertEquals(LogDamage.Kind.TRUNCATED_SEGMENT, log.damage().get(0).kind());
      assertEquals(positions.get(5), log.damage().get(0).position());
      assertEquals(List.of("r0", "r1", "r2", "r3", "r4"), replayed(log));
    }
  }

  @Test
  void aDirectoryWhereASegmentShouldBeIsAnUnreadableSegmentAndAForeignEntry() throws IOException {
    writeThreeSegments(settings());
    Files.delete(segmentFile(dir, 1));
    Files.createDirectory(segmentFile(dir, 1));
    Files.writeString(dir.resolve("notes.txt"), "not the log's");
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(LogDamage.Kind.UNREADABLE_SEGMENT, log.damage().get(0).kind());
      assertEquals(List.of(dir.resolve("notes.txt"), segmentFile(dir, 1)).stream().map(p -> p.getFileName().toString()).sorted().toList(),
          log.foreignEntries().stream().map(p -> p.getFileName().toString()).sorted().toList());
      assertEquals(List.of("r0", "r1", "r2"), replayed(log));
      long p = append(log, 10, "after");
      log.finish(p, () -> 0);
      assertEquals(2, LogPosition.segment(p));
    }
    // An unreadable entry above the last segment: appends go past it, so log order stays file order.
    Files.createDirectory(segmentFile(dir, 3));
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      long p = append(log, 11, "past the directory");
      log.finish(p, () -> 0);
      assertEquals(4, LogPosition.segment(p));
      assertEquals(List.of("r0", "r1", "r2", "r6", "r7", "r8", "after", "past the directory"),
          values(readAll(log)));
    }
    Files.delete(segmentFile(dir, 3));
    Files.createFile(dir.resolve("placeholder"));
    InspectionReport report = LogInspector.inspect(dir);
    assertEquals(3, report.foreignEntries().size(), report.foreignEntries().toString());
    assertEquals(LogDamage.Kind.UNREADABLE_SEGMENT, report.damage().get(0).kind());
  }

  @Test
  void anOversizedSparseSegmentIsUnreadableNotACrash() throws IOException {
    writeThreeSegments(settings());
    try (RandomAccessFile f = new RandomAccessFile(segmentFile(dir, 1).toFile(), "rw")) {
      f.setLength(2L << 30); // 2 GiB, sparse
    }
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(LogDamage.Kind.UNREADABLE_SEGMENT, log.damage().get(0).kind());
      assertTrue(log.damage().get(0).detail().contains("larger than any log writes"), log.damage().toString());
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertEquals(LogInspector.CORRUPT, LogInspector.run(new String[] {dir.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), quiet()));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("DAMAGED"), out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aCleanLogWithAPurgedPrefixHasNoDamage() throws IOException {
    List<Long> positions = writeThreeSegments(settings());
    try (TransactionLog log = TransactionLog.open(dir, settings().withRetention(java.time.Duration.ZERO))) {
      log.markFlushedThrough(positions.get(6));
      assertTrue(log.purge(java.time.Instant.now().plusSeconds(60)).segmentsDeleted() >= 1);
    }
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(List.of(), log.damage());
      assertEquals(List.of("r6", "r7", "r8"), replayed(log));
    }
    assertTrue(LogInspector.inspect(dir).clean());
  }

  @Test
  void stampedAppendsTakeTheirTimestampsInLogOrder() throws Exception {
    MonotonicClock clock = new MonotonicClock(() -> 1_000);
    List<TransactionLog.Appended> appended = java.util.Collections.synchronizedList(new ArrayList<>());
    try (TransactionLog log = TransactionLog.open(dir, settings().withMaxSegmentBytes(64 << 10))) {
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int id = t;
        threads.add(new Thread(() -> {
          for (int i = 0; i < 500; i++) {
            TransactionLog.Appended a = log.append(id * 1000L + i, clock, 0, entries("x"), null);
            log.finish(a.position(), () -> 0);
            appended.add(a);
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      List<LogRecord> read = readAll(log);
      assertEquals(2000, read.size());
      for (int i = 1; i < read.size(); i++) {
        assertTrue(read.get(i).timestamp() > read.get(i - 1).timestamp(), "timestamps follow log order at " + i);
      }
      for (TransactionLog.Appended a : appended) {
        assertEquals(a.timestamp(), read.stream().filter(r -> r.position() == a.position()).findFirst().orElseThrow().timestamp());
      }
    }
  }

  @Test
  void abandonedRecordsAreHiddenFromReadersAndReplayForGood() throws IOException {
    List<Long> positions = writeThreeSegments(settings());
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      log.abandon(List.of(positions.get(7), positions.get(8)));
      assertEquals(List.of("r0", "r1", "r2", "r3", "r4", "r5", "r6"), values(readAll(log)));
      assertThrows(IllegalArgumentException.class, () -> log.abandon(List.of(positions.get(8))));
    }
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(List.of("r0", "r1", "r2", "r3", "r4", "r5", "r6"), replayed(log));
    }
  }

  @Test
  void markFlushedThroughNeverPassesTheCommittedWatermarkNorMovesBack() throws IOException {
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      long a = append(log, 1, "a");
      log.finish(a, () -> 0);
      long b = append(log, 2, "b"); // not finished
      log.markFlushedThrough(Long.MAX_VALUE);
      assertEquals(b, log.flushedPosition(), "stops at the first record still unfinished");
      log.markFlushedThrough(a);
      assertEquals(b, log.flushedPosition(), "never moves back");
      log.finish(b, () -> 0);
    }
    try (TransactionLog log = TransactionLog.open(dir, settings())) {
      assertEquals(List.of("b"), replayed(log));
    }
  }

  @Test
  void oneDirectoryIsOneLogHoweverItIsReached() throws IOException {
    Path real = Files.createDirectories(dir.resolve("real"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), real);
    try (TransactionLog log = TransactionLog.open(real, settings())) {
      TransactionLogException e = assertThrows(TransactionLogException.class,
          () -> TransactionLog.open(link, settings()));
      assertTrue(e.getMessage().contains("already open"), e.getMessage());
      assertEquals(real.toRealPath(), log.directory());
    }
    try (TransactionLog log = TransactionLog.open(link, settings())) {
      assertEquals(real.toRealPath(), log.directory());
    }
  }

  private static PrintStream quiet() {
    return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
  }
}
