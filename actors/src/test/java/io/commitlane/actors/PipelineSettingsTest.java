package io.commitlane.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.BlindWrites;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.OccValidation;
import io.commitlane.txlog.Durability;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PipelineSettingsTest {
  private static PipelineSettings parse(Map<String, Object> overrides) {
    Config c = ConfigFactory.parseMap(overrides).atPath("commitlane").withFallback(ConfigFactory.defaultReference());
    return PipelineSettings.fromConfig(c);
  }

  @Test
  void referenceConfDefaults() {
    PipelineSettings s = parse(Map.of());
    assertEquals(CommitlaneSettings.defaultCommitThreads(), s.commitThreads());
    assertEquals(65_536, s.storage().occLockBuckets());
    assertEquals(OccValidation.PARALLEL, s.storage().occValidation());
    assertEquals(BlindWrites.CONFLICT, s.storage().occBlindWrites());
    assertEquals(PipelineMode.THREADS, s.mode());
    assertEquals(4096, s.commitQueueCapacity());
    assertEquals(256, s.executorBatch());
    assertTrue(s.walEnabled());
    assertEquals(Durability.PROCESS, s.log().durability());
    assertEquals(16L << 20, s.log().maxSegmentBytes());
    assertEquals(Duration.ofDays(3), s.log().retention());
    assertEquals(Duration.ofHours(1), s.purgeInterval());
    assertTrue(s.replay());
  }

  @Test
  void rangesAreEnforcedAndEveryBadFieldIsNamed() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> parse(Map.of(
        "commit-threads", 65, "occ-lock-buckets", 8, "occ-validation", "eager", "mode", "fast",
        "commit-queue-capacity", 0, "executor-batch", "many", "wal", "maybe")));
    assertEquals(java.util.Set.of("commitlane.commit-threads", "commitlane.occ-lock-buckets", "commitlane.occ-validation",
        "commitlane.mode", "commitlane.commit-queue-capacity", "commitlane.executor-batch", "commitlane.wal"),
        java.util.Set.copyOf(e.fields()));
    assertTrue(e.getMessage().contains("\"auto\" or an integer in 1..64"), e.getMessage());
    assertTrue(e.getMessage().contains("16..16777216"), e.getMessage());
  }

  @Test
  void logAppendModeAndItsLeaderlessSettingsAreReadAndChecked() {
    io.commitlane.txlog.LogSettings log = parse(Map.of()).log();
    assertEquals(io.commitlane.txlog.AppendMode.SERIALIZED, log.appendMode());
    assertEquals(1L << 20, log.appendBufferBytes());
    assertEquals(16384, log.completionRingSlots());
    log = parse(Map.of("txlog.append", "leaderless", "txlog.append-buffer-size", "64 KiB",
        "txlog.completion-ring-slots", 1024, "txlog.completion-ring-wait", "2 s")).log();
    assertEquals(io.commitlane.txlog.AppendMode.LEADERLESS, log.appendMode());
    assertEquals(64L << 10, log.appendBufferBytes());
    assertEquals(1024, log.completionRingSlots());
    assertEquals(java.time.Duration.ofSeconds(2), log.completionRingWait());
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> parse(Map.of(
        "txlog.append", "leaderful", "txlog.append-buffer-size", "1 KiB", "txlog.completion-ring-slots", 1000)));
    assertEquals(java.util.Set.of("commitlane.txlog.append", "commitlane.txlog.append-buffer-size",
        "commitlane.txlog.completion-ring-slots"), java.util.Set.copyOf(e.fields()));
    assertTrue(e.getMessage().contains("\"serialized\", \"leaderless\", \"actor\""), e.getMessage());
    log = parse(Map.of("txlog.append", "actor", "txlog.append-buffer-size", "256 KiB")).log();
    assertEquals(io.commitlane.txlog.AppendMode.ACTOR, log.appendMode());
    assertEquals(256L << 10, log.appendBufferBytes(), "the most one batch of the log's writer takes");
  }

  @Test
  void rocksDbWalOptionsAreReadAndIncompatibleOnesNamed() {
    io.commitlane.storage.RocksDbWal wal = parse(Map.of()).storage().rocksDbWal();
    assertEquals(io.commitlane.storage.RocksDbWal.defaults(), wal);
    wal = parse(Map.of("rocksdb-wal.manual-flush", "on", "rocksdb-wal.sync-interval", "100 ms",
        "rocksdb-wal.ack-after-sync", "on", "rocksdb-wal.two-write-queues", "on")).storage().rocksDbWal();
    assertEquals(new io.commitlane.storage.RocksDbWal(true, java.time.Duration.ofMillis(100), true, false, false, true), wal);
    InvalidSettingsException both = assertThrows(InvalidSettingsException.class, () -> parse(Map.of(
        "rocksdb-wal.unordered-write", "on", "rocksdb-wal.pipelined-write", "on", "rocksdb-wal.sync-interval", "2 minutes")));
    assertEquals(java.util.Set.of("commitlane.rocksdb-wal.unordered-write", "commitlane.rocksdb-wal.sync-interval"),
        java.util.Set.copyOf(both.fields()));
    InvalidSettingsException walOff = assertThrows(InvalidSettingsException.class, () -> parse(Map.of(
        "wal", "off", "rocksdb-wal.manual-flush", "on")));
    assertEquals(java.util.List.of("commitlane.rocksdb-wal"), walOff.fields());
  }

  @Test
  void limitsAreInclusive() {
    PipelineSettings s = parse(Map.of("commit-threads", 64, "occ-lock-buckets", 16, "commit-queue-capacity", 1, "mode", "legacy"));
    assertEquals(64, s.commitThreads());
    assertEquals(16, s.storage().occLockBuckets());
    assertEquals(1, s.commitQueueCapacity());
    assertEquals(PipelineMode.LEGACY, s.mode());
    assertEquals(1, parse(Map.of("commit-threads", 1)).commitThreads());
  }
}
