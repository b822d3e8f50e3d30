package io.commitlane.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.config.SettingKeys;
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
    assertEquals(PipelineSettings.autoCommitThreads(), s.commitThreads());
    assertEquals(65_536, s.storage().occLockBuckets());
    assertEquals(OccValidation.PARALLEL, s.storage().occValidation());
    assertEquals(BlindWrites.CONFLICT, s.storage().occBlindWrites());
    assertEquals(PipelineMode.THREADS, s.mode());
    assertEquals(4096, s.commitQueueCapacity());
    assertEquals(256, s.executorBatch());
    assertEquals(Duration.ofNanos(100_000), s.executorSpin());
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

  /** Blocking commits on the completion dispatcher are a benchmark peer, not a mode: a configured legacy is refused. */
  @Test
  void legacyIsNotAModeAndIsRefusedListingTheModes() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> parse(Map.of("mode", "legacy")));
    assertEquals(java.util.List.of("commitlane.mode"), e.fields());
    assertTrue(e.getMessage().contains("\"threads\" or \"two-lane\""), e.getMessage());
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
    assertTrue(e.getMessage().contains("\"serialized\", \"leaderless\" or \"actor\""), e.getMessage());
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
  void requestIdWindowCountAndPurgeAreReadAndChecked() {
    assertEquals(RequestIdSettings.defaults(), parse(Map.of()).requestIds());
    assertEquals(new RequestIdSettings(java.time.Duration.ofHours(2), 5000, java.time.Duration.ofSeconds(5)),
        parse(Map.of("request-ids.window", "2 hours", "request-ids.max-ids", 5000, "request-ids.purge-interval", "5 s")).requestIds());
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> parse(Map.of(
        "request-ids.window", "0 s", "request-ids.max-ids", 0, "request-ids.purge-interval", "10 ms")));
    assertEquals(java.util.List.of("commitlane.request-ids.window", "commitlane.request-ids.max-ids",
        "commitlane.request-ids.purge-interval"), e.fields());
    assertTrue(e.getMessage().contains("commitlane.request-ids.window = \"0 s\": must be a duration in 1 s..30 days"), e.getMessage());
  }

  @Test
  void executorSpinIsADurationUpToOneMillisecond() {
    assertEquals(Duration.ZERO, parse(Map.of("executor-spin", "0 us")).executorSpin());
    assertEquals(Duration.ofMillis(1), parse(Map.of("executor-spin", "1 ms")).executorSpin());
    assertEquals(Duration.ofNanos(20_000), parse(Map.of("executor-spin", "20 us")).executorSpin());
    for (String bad : new String[] {"1001 us", "-1 us", "soon"}) {
      InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> parse(Map.of("executor-spin", bad)), bad);
      assertEquals(java.util.List.of("commitlane.executor-spin"), e.fields(), bad);
    }
    assertThrows(InvalidSettingsException.class, () -> PipelineSettings.defaults().withExecutorSpin(Duration.ofMillis(2)));
  }

  @Test
  void limitsAreInclusive() {
    PipelineSettings s = parse(Map.of("commit-threads", 64, "occ-lock-buckets", 16, "commit-queue-capacity", 1, "mode", "two-lane"));
    assertEquals(64, s.commitThreads());
    assertEquals(16, s.storage().occLockBuckets());
    assertEquals(1, s.commitQueueCapacity());
    assertEquals(PipelineMode.TWO_LANE, s.mode());
    assertEquals(1, parse(Map.of("commit-threads", 1)).commitThreads());
  }

  @Test
  void unknownAndMisspeltKeysAreRefusedNamingTheNearestKnownKey() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> parse(Map.of(
        "txlog.durabilty", "fsync", "comit-threads", 2, "write-groups.max-member", 8)));
    assertEquals(java.util.List.of("commitlane.comit-threads", "commitlane.txlog.durabilty", "commitlane.write-groups.max-member"),
        e.fields());
    assertTrue(e.getMessage().contains("commitlane.txlog.durabilty = \"fsync\": is not a setting; the nearest known key is"
        + " commitlane.txlog.durability"), e.getMessage());
    assertTrue(e.getMessage().contains("nearest known key is commitlane.commit-threads"), e.getMessage());
    assertTrue(e.getMessage().contains("nearest known key is commitlane.write-groups.max-members"), e.getMessage());
    // Other modules' sections and the dispatcher sections are not settings of a database.
    parse(Map.of("cluster.ask-timeout", "3 s", "replication.request-timeout", "10 s", "commit-dispatcher.throughput", 5,
        "lifecycle-dispatcher.throughput", 2));
  }

  @Test
  void integerSettingsRefuseFractions() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> parse(Map.of(
        "commit-threads", 4.5, "commit-queue-capacity", 10.25, "write-groups.max-keys", "12.0")));
    assertEquals(java.util.Set.of("commitlane.commit-threads", "commitlane.commit-queue-capacity", "commitlane.write-groups.max-keys"),
        java.util.Set.copyOf(e.fields()));
    PipelineSettings fromStrings = parse(Map.of("commit-threads", "3", "executor-batch", "100")); // as -D system properties give them
    assertEquals(3, fromStrings.commitThreads());
    assertEquals(100, fromStrings.executorBatch());
  }

  /** Each with method changes its setting and only it; every setting has one. */
  @Test
  void everyWithMethodRoundTrips() {
    PipelineSettings d = PipelineSettings.defaults();
    io.commitlane.txlog.LogSettings log = d.log().withDurability(Durability.FSYNC).withMaxSegmentBytes(1 << 20);
    io.commitlane.storage.RocksDbWal wal = new io.commitlane.storage.RocksDbWal(true, Duration.ofMillis(5), false, false, false, false);
    WriteGroupSettings groups = new WriteGroupSettings(true, 8, 100, 1 << 16);
    CommitlaneSettings storage = new CommitlaneSettings(1024, OccValidation.SERIAL, BlindWrites.ORDERED,
        io.commitlane.storage.RocksDbWal.defaults(), io.commitlane.storage.RocksDbTuning.defaults());
    java.util.Map<String, java.util.function.UnaryOperator<PipelineSettings>> changes = new java.util.LinkedHashMap<>();
    changes.put("storage", s -> s.withStorage(storage));
    changes.put("commitThreads", s -> s.withCommitThreads(7));
    changes.put("storage.occLockBuckets", s -> s.withOccLockBuckets(128));
    changes.put("storage.occValidation", s -> s.withOccValidation(OccValidation.SERIAL));
    changes.put("storage.occBlindWrites", s -> s.withOccBlindWrites(BlindWrites.ORDERED));
    changes.put("storage.rocksDbWal", s -> s.withRocksDbWal(wal));
    changes.put("mode", s -> s.withMode(PipelineMode.TWO_LANE));
    changes.put("commitQueueCapacity", s -> s.withCommitQueueCapacity(17));
    changes.put("executorBatch", s -> s.withExecutorBatch(9));
    changes.put("completionDispatcher", s -> s.withCompletionDispatcher("my-dispatcher"));
    changes.put("walEnabled", s -> s.withWalEnabled(false));
    changes.put("log", s -> s.withLog(log));
    changes.put("log.durability", s -> s.withLogDurability(Durability.NONE));
    changes.put("log.recovery", s -> s.withLogRecovery(io.commitlane.txlog.RecoveryMode.SKIP_CORRUPTED));
    changes.put("replay", s -> s.withReplay(false));
    changes.put("purgeInterval", s -> s.withPurgeInterval(Duration.ZERO));
    changes.put("writeGroups", s -> s.withWriteGroups(groups));
    changes.put("executorSpin", s -> s.withExecutorSpin(Duration.ZERO));
    for (var c : changes.entrySet()) {
      assertTrue(!c.getValue().apply(d).equals(d), c.getKey() + " changed nothing");
    }
    assertEquals(storage, d.withStorage(storage).storage());
    assertEquals(7, d.withCommitThreads(7).commitThreads());
    assertEquals(128, d.withOccLockBuckets(128).storage().occLockBuckets());
    assertEquals(OccValidation.SERIAL, d.withOccValidation(OccValidation.SERIAL).storage().occValidation());
    assertEquals(BlindWrites.ORDERED, d.withOccBlindWrites(BlindWrites.ORDERED).storage().occBlindWrites());
    assertEquals(wal, d.withRocksDbWal(wal).storage().rocksDbWal());
    assertEquals(PipelineMode.TWO_LANE, d.withMode(PipelineMode.TWO_LANE).mode());
    assertEquals(17, d.withCommitQueueCapacity(17).commitQueueCapacity());
    assertEquals(9, d.withExecutorBatch(9).executorBatch());
    assertEquals("my-dispatcher", d.withCompletionDispatcher("my-dispatcher").completionDispatcher());
    assertEquals(false, d.withWalEnabled(false).walEnabled());
    assertEquals(log, d.withLog(log).log());
    assertEquals(Durability.NONE, d.withLogDurability(Durability.NONE).log().durability());
    assertEquals(io.commitlane.txlog.RecoveryMode.ABSOLUTE_CONSISTENCY,
        d.withLogRecovery(io.commitlane.txlog.RecoveryMode.ABSOLUTE_CONSISTENCY).log().recoveryMode());
    assertEquals(false, d.withReplay(false).replay());
    assertEquals(Duration.ZERO, d.withPurgeInterval(Duration.ZERO).purgeInterval());
    assertEquals(groups, d.withWriteGroups(groups).writeGroups());
    // Only the setting named changes.
    PipelineSettings one = d.withCommitQueueCapacity(17);
    assertEquals(d.withCommitQueueCapacity(d.commitQueueCapacity()), d);
    assertEquals(d.storage(), one.storage());
    assertEquals(d.log(), one.log());
    assertEquals(d.writeGroups(), one.writeGroups());
    // Every record component has its with method.
    for (java.lang.reflect.RecordComponent rc : PipelineSettings.class.getRecordComponents()) {
      String with = "with" + Character.toUpperCase(rc.getName().charAt(0)) + rc.getName().substring(1);
      assertTrue(java.util.Arrays.stream(PipelineSettings.class.getMethods()).anyMatch(m -> m.getName().equals(with)),
          "no " + with + " for " + rc.getName());
    }
    for (java.lang.reflect.RecordComponent rc : CommitlaneSettings.class.getRecordComponents()) {
      String with = "with" + Character.toUpperCase(rc.getName().charAt(0)) + rc.getName().substring(1);
      assertTrue(java.util.Arrays.stream(PipelineSettings.class.getMethods()).anyMatch(m -> m.getName().equals(with)),
          "no " + with + " for storage." + rc.getName());
    }
    // The with methods validate like the config does.
    assertThrows(InvalidSettingsException.class, () -> d.withCommitQueueCapacity(0));
    assertThrows(InvalidSettingsException.class, () -> d.withCommitThreads(65));
    assertThrows(InvalidSettingsException.class, () -> d.withRocksDbWal(wal).withWalEnabled(false));
  }

  /** The known keys are reference.conf's: one place defines a setting's key and default. */
  @Test
  void theKnownKeysAreTheSettingsOfReferenceConf() {
    assertTrue(SettingKeys.SETTINGS.containsAll(java.util.List.of("commit-threads", "txlog.recovery", "rocksdb.compression",
        "write-groups.max-bytes", "request-ids.purge-interval", "rocksdb-wal.two-write-queues")), SettingKeys.SETTINGS.toString());
    assertTrue(SettingKeys.SETTINGS.stream().noneMatch(k -> k.startsWith("commit-dispatcher.") || k.startsWith("stream.")
        || k.startsWith("cluster.") || k.startsWith("replication.") || k.startsWith("rocksdb.store-compression.")),
        "sections with settings of their own are not database settings: " + SettingKeys.SETTINGS);
    com.typesafe.config.Config every = ConfigFactory.defaultReference().getConfig("commitlane");
    for (String key : SettingKeys.SETTINGS) {
      assertTrue(every.hasPath(key), key + " has its default in reference.conf");
    }
  }
}
