package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {
  @Test
  void defaults() {
    CommitlaneSettings d = CommitlaneSettings.defaults();
    assertEquals(65_536, d.occLockBuckets());
    assertEquals(OccValidation.PARALLEL, d.occValidation());
    assertEquals(BlindWrites.CONFLICT, d.occBlindWrites());
  }

  @Test
  void rangesAreInclusive() {
    CommitlaneSettings d = CommitlaneSettings.defaults();
    assertEquals(16, d.withOccLockBuckets(16).occLockBuckets());
    assertEquals(16_777_216, d.withOccLockBuckets(16_777_216).occLockBuckets());
    assertEquals(OccValidation.SERIAL, d.withOccValidation(OccValidation.SERIAL).occValidation());
  }

  @Test
  void outOfRangeNamesFieldAndRange() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> CommitlaneSettings.defaults().withOccLockBuckets(15));
    assertEquals(List.of("occLockBuckets"), e.fields());
    assertTrue(e.getMessage().contains("16..16777216"), e.getMessage());
    assertTrue(e.getMessage().contains("nothing was applied"), e.getMessage());
  }

  @Test
  void everyBadFieldIsReportedTogether() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> new CommitlaneSettings(17_000_000, null, null, RocksDbWal.defaults(), RocksDbTuning.defaults()));
    assertEquals(List.of("occLockBuckets", "occValidation", "occBlindWrites"), e.fields());
    assertTrue(e.getMessage().contains("\"parallel\" or \"serial\""), e.getMessage());
    assertTrue(e.getMessage().contains("\"conflict\" or \"ordered\""), e.getMessage());
  }

  @Test
  void blindWritesSetting() {
    assertEquals(BlindWrites.ORDERED, CommitlaneSettings.defaults().withOccBlindWrites(BlindWrites.ORDERED).occBlindWrites());
  }

  @Test
  void openDatabasesKeepWhatTheyOpenedWith(@TempDir Path dir) {
    CommitlaneSettings small = CommitlaneSettings.defaults().withOccLockBuckets(1024);
    try (Database first = Database.open(dir.resolve("a"), DatabaseOptions.defaults().withSettings(small))) {
      assertEquals(1024, first.settings().occLockBuckets());
      // A second handle without explicit settings shares the open database as it is.
      try (Database second = Database.open(dir.resolve("a"))) {
        assertEquals(1024, second.settings().occLockBuckets());
      }
      // One that asks for other settings is refused, naming the difference.
      PathInUseException refused = assertThrows(PathInUseException.class, () -> Database.open(dir.resolve("a"),
          DatabaseOptions.defaults().withSettings(small.withOccValidation(OccValidation.SERIAL))));
      assertTrue(refused.getMessage().contains("occValidation"), refused.getMessage());
      try (Database other = Database.open(dir.resolve("b"))) {
        assertEquals(CommitlaneSettings.defaults(), other.settings());
      }
    }
  }
}
