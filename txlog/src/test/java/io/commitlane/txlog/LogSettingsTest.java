package io.commitlane.txlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LogSettingsTest {

  @Test
  void defaultsMatchTheDesign() {
    LogSettings s = LogSettings.defaults();
    assertEquals(Durability.PROCESS, s.durability());
    assertEquals(16L << 20, s.maxSegmentBytes());
    assertEquals(Duration.ofHours(1), s.maxSegmentAge());
    assertEquals(Duration.ofDays(3), s.retention());
    assertEquals(AppendMode.SERIALIZED, s.appendMode());
    assertEquals(RecoveryMode.POINT_IN_TIME, s.recoveryMode());
    assertEquals(null, s.name(), "the directory's name is used");
  }

  @Test
  void eachWitherChangesItsOwnFieldOnly() {
    LogSettings d = LogSettings.defaults();
    java.time.Clock clock = java.time.Clock.fixed(java.time.Instant.EPOCH, java.time.ZoneOffset.UTC);
    io.commitlane.txlog.internal.fs.FaultInjectingFileSystem fs = new io.commitlane.txlog.internal.fs.FaultInjectingFileSystem();
    LogSettings all = d.withDurability(Durability.FSYNC).withMaxSegmentBytes(1L << 20)
        .withMaxSegmentAge(Duration.ofMinutes(5)).withRetention(Duration.ofDays(1)).withGroupCommitMaxBytes(4096)
        .withGroupCommitMaxRecords(16).withGroupCommitMaxWait(Duration.ofMillis(2)).withFileSystem(fs).withClock(clock)
        .withName("orders").withAppendMode(AppendMode.LEADERLESS).withAppendBufferBytes(8192)
        .withCompletionRingSlots(1024).withCompletionRingWait(Duration.ofSeconds(1))
        .withRecoveryMode(RecoveryMode.SKIP_CORRUPTED);
    assertEquals(new LogSettings(Durability.FSYNC, 1L << 20, Duration.ofMinutes(5), Duration.ofDays(1), 4096, 16,
        Duration.ofMillis(2), fs, clock, "orders", AppendMode.LEADERLESS, 8192, 1024, Duration.ofSeconds(1),
        RecoveryMode.SKIP_CORRUPTED), all);
    assertEquals(new LogSettings(d.durability(), d.maxSegmentBytes(), d.maxSegmentAge(), d.retention(),
        d.groupCommitMaxBytes(), d.groupCommitMaxRecords(), d.groupCommitMaxWait(), d.fileSystem(), d.clock(),
        "orders", d.appendMode(), d.appendBufferBytes(), d.completionRingSlots(), d.completionRingWait(),
        d.recoveryMode()), d.withName("orders"));
    assertEquals(LogSettings.defaults(), d, "a wither leaves the settings it was called on as they were");
  }

  @Test
  void eachInvalidFieldIsNamedWithItsRange() {
    InvalidLogSettingException e = assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withMaxSegmentBytes(100));
    assertEquals("maxSegmentBytes", e.field());
    assertTrue(e.getMessage().contains("4096..1073741824"), e.getMessage());

    assertEquals("maxSegmentAge", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withMaxSegmentAge(Duration.ZERO)).field());
    assertEquals("retention", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withRetention(Duration.ofDays(-1))).field());
    assertEquals("groupCommitMaxRecords", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withGroupCommitMaxRecords(0)).field());
    assertEquals("groupCommitMaxBytes", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withGroupCommitMaxBytes(0)).field());
    assertEquals("groupCommitMaxWait", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withGroupCommitMaxWait(Duration.ofSeconds(2))).field());
    assertEquals("durability", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withDurability(null)).field());
    assertEquals("fileSystem", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withFileSystem(null)).field());
    assertEquals("appendMode", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withAppendMode(null)).field());
    assertEquals("appendBufferBytes", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withAppendBufferBytes(1024)).field());
    InvalidLogSettingException slots = assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withCompletionRingSlots(1000));
    assertEquals("completionRingSlots", slots.field());
    assertTrue(slots.getMessage().contains("power of two"), slots.getMessage());
    assertEquals("completionRingWait", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withCompletionRingWait(Duration.ofHours(2))).field());
    assertEquals("clock", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withClock(null)).field());
    assertEquals("recoveryMode", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withRecoveryMode(null)).field());
    assertEquals("name", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.defaults().withName(" ")).field());
  }

  @Test
  void aWitherRefusesABadValueAtOnce() {
    LogSettings small = LogSettings.defaults().withMaxSegmentBytes(4096);
    InvalidLogSettingException e = assertThrows(InvalidLogSettingException.class, () -> small.withMaxSegmentBytes(1));
    assertEquals("invalid txlog setting maxSegmentBytes = 1; allowed: 4096..1073741824 bytes (4 KiB..1 GiB)", e.getMessage());
    assertEquals(0, e.getSuppressed().length, "the other fields are valid");
    assertEquals(4096, small.maxSegmentBytes(), "unchanged");
  }

  @Test
  void allFieldsAreCheckedBeforeFailing() {
    LogSettings d = LogSettings.defaults();
    InvalidLogSettingException e = assertThrows(InvalidLogSettingException.class,
        () -> new LogSettings(d.durability(), 1, d.maxSegmentAge(), null, d.groupCommitMaxBytes(),
            d.groupCommitMaxRecords(), d.groupCommitMaxWait(), d.fileSystem(), d.clock(), d.name(), d.appendMode(),
            d.appendBufferBytes(), d.completionRingSlots(), d.completionRingWait(), d.recoveryMode()));
    assertEquals("maxSegmentBytes", e.field());
    assertEquals(1, e.getSuppressed().length);
    assertEquals("retention", ((InvalidLogSettingException) e.getSuppressed()[0]).field());
  }
}
