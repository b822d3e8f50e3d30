package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {
  @AfterEach
  void resetProcessSettings() {
    ProcessSettings.reset();
  }

  @Test
  void defaults() {
    CommitlaneSettings d = CommitlaneSettings.defaults();
    assertEquals(65_536, d.occLockBuckets());
    assertEquals(OccValidation.PARALLEL, d.occValidation());
    assertEquals(Math.min(4, Runtime.getRuntime().availableProcessors()), d.commitThreads());
  }

  @Test
  void rangesAreInclusive() {
    CommitlaneSettings d = CommitlaneSettings.defaults();
    assertEquals(16, d.withOccLockBuckets(16).occLockBuckets());
    assertEquals(16_777_216, d.withOccLockBuckets(16_777_216).occLockBuckets());
    assertEquals(1, d.withCommitThreads(1).commitThreads());
    assertEquals(64, d.withCommitThreads(64).commitThreads());
    assertEquals(100_000, d.with(Map.of("occLockBuckets", "100000")).occLockBuckets());
    assertEquals(OccValidation.SERIAL, d.with(Map.of("occValidation", "serial")).occValidation());
  }

  @Test
  void outOfRangeNamesFieldAndRange() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> CommitlaneSettings.defaults().withOccLockBuckets(15));
    assertEquals(List.of("occLockBuckets"), e.fields());
    assertTrue(e.getMessage().contains("16..16777216"), e.getMessage());

    e = assertThrows(InvalidSettingsException.class, () -> CommitlaneSettings.defaults().withCommitThreads(65));
    assertEquals(List.of("commitThreads"), e.fields());
    assertTrue(e.getMessage().contains("1..64"), e.getMessage());
  }

  @Test
  void wrongTypesUnknownFieldsAndBadEnumsAreAllReported() {
    Map<String, Object> changes = new LinkedHashMap<>();
    changes.put("occLockBuckets", 1.5);
    changes.put("occValidation", "fast");
    changes.put("commitThreads", 0);
    changes.put("commitThread", 2);
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> CommitlaneSettings.defaults().with(changes));
    assertEquals(List.of("commitThread", "occLockBuckets", "occValidation", "commitThreads"), e.fields());
    assertTrue(e.getMessage().contains("\"parallel\" or \"serial\""), e.getMessage());
    assertTrue(e.getMessage().contains("unknown setting"), e.getMessage());
    assertTrue(e.getMessage().contains("nothing was applied"), e.getMessage());
  }

  @Test
  void blindWritesSetting() {
    assertEquals(BlindWrites.CONFLICT, CommitlaneSettings.defaults().occBlindWrites());
    assertEquals(BlindWrites.ORDERED, CommitlaneSettings.defaults().with(Map.of("occBlindWrites", "ordered")).occBlindWrites());
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> CommitlaneSettings.defaults().with(Map.of("occBlindWrites", "sometimes")));
    assertEquals(List.of("occBlindWrites"), e.fields());
    assertTrue(e.getMessage().contains("\"conflict\" or \"ordered\""), e.getMessage());
  }

  @Test
  void nonStringValidationIsRejected() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> CommitlaneSettings.defaults().with(Map.of("occValidation", 1)));
    assertEquals(List.of("occValidation"), e.fields());
  }

  @Test
  void processSettingsAreAtomic() {
    CommitlaneSettings before = ProcessSettings.current();
    Map<String, Object> changes = new LinkedHashMap<>();
    changes.put("occLockBuckets", 1024);        // valid
    changes.put("occValidation", "serial");     // valid
    changes.put("commitThreads", 1000);         // invalid: nothing may be applied
    assertThrows(InvalidSettingsException.class, () -> ProcessSettings.configure(changes));
    assertSame(before, ProcessSettings.current());

    ProcessSettings.configure(Map.of("occLockBuckets", 1024, "occValidation", "serial"));
    assertEquals(1024, ProcessSettings.current().occLockBuckets());
    assertEquals(OccValidation.SERIAL, ProcessSettings.current().occValidation());
    assertEquals(before.commitThreads(), ProcessSettings.current().commitThreads());
  }

  @Test
  void openDatabasesKeepWhatTheyOpenedWith(@TempDir Path dir) {
    ProcessSettings.configure(Map.of("occLockBuckets", 1024));
    try (Database first = Database.open(dir.resolve("a"))) {
      ProcessSettings.configure(Map.of("occLockBuckets", 4096, "occValidation", "serial"));
      assertEquals(1024, first.settings().occLockBuckets());
      assertEquals(OccValidation.PARALLEL, first.settings().occValidation());
      // A second handle without explicit settings shares the open database as it is.
      try (Database second = Database.open(dir.resolve("a"))) {
        assertEquals(1024, second.settings().occLockBuckets());
      }
      try (Database other = Database.open(dir.resolve("b"))) {
        assertEquals(4096, other.settings().occLockBuckets());
        assertEquals(OccValidation.SERIAL, other.settings().occValidation());
      }
    }
  }
}
