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
    assertEquals(s, s.toBuilder().build());
  }

  @Test
  void eachInvalidFieldIsNamedWithItsRange() {
    InvalidLogSettingException e = assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().maxSegmentBytes(100).build());
    assertEquals("maxSegmentBytes", e.field());
    assertTrue(e.getMessage().contains("4096..1073741824"), e.getMessage());

    assertEquals("maxSegmentAge", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().maxSegmentAge(Duration.ZERO).build()).field());
    assertEquals("retention", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().retention(Duration.ofDays(-1)).build()).field());
    assertEquals("groupCommitMaxRecords", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().groupCommitMaxRecords(0).build()).field());
    assertEquals("groupCommitMaxBytes", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().groupCommitMaxBytes(0).build()).field());
    assertEquals("groupCommitMaxWait", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().groupCommitMaxWait(Duration.ofSeconds(2)).build()).field());
    assertEquals("durability", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().durability(null).build()).field());
    assertEquals("fileSystem", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().fileSystem(null).build()).field());
    assertEquals("appendMode", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().appendMode(null).build()).field());
    assertEquals("appendBufferBytes", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().appendBufferBytes(1024).build()).field());
    InvalidLogSettingException slots = assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().completionRingSlots(1000).build());
    assertEquals("completionRingSlots", slots.field());
    assertTrue(slots.getMessage().contains("power of two"), slots.getMessage());
    assertEquals("completionRingWait", assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().completionRingWait(Duration.ofHours(2)).build()).field());
  }

  @Test
  void allFieldsAreCheckedBeforeFailing() {
    InvalidLogSettingException e = assertThrows(InvalidLogSettingException.class,
        () -> LogSettings.builder().maxSegmentBytes(1).retention(null).build());
    assertEquals("maxSegmentBytes", e.field());
    assertEquals(1, e.getSuppressed().length);
    assertEquals("retention", ((InvalidLogSettingException) e.getSuppressed()[0]).field());
  }
}
