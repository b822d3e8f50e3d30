package io.commitlane.storage.internal.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A setting's definition says what it allows, in reference.conf's words and in an error's. */
class SettingTest {
  @Test
  void aDecimalAllowsFractionsInItsRangeAndNothingElse() {
    Setting factor = Setting.decimal("stream.x.random-factor", "randomFactor", 0.0, 1.0, "jitter");
    assertEquals(Setting.Kind.DECIMAL, factor.kind());
    assertEquals("0.0..1.0", factor.range());
    assertEquals("must be a number in 0.0..1.0", factor.allowed());
    assertTrue(factor.allows(0.0));
    assertTrue(factor.allows(0.2));
    assertTrue(factor.allows(1.0));
    assertFalse(factor.allows(-0.01));
    assertFalse(factor.allows(1.5));
    assertFalse(factor.allows(Double.NaN));
    List<SettingError> errors = new ArrayList<>();
    factor.check(errors, "random-factor", 0.5);
    assertEquals(List.of(), errors);
    factor.check(errors, "random-factor", 2.0);
    assertEquals(List.of(new SettingError("random-factor", 2.0, "must be a number in 0.0..1.0")), errors);
  }

  @Test
  void aDurationThatMayBeOffSaysSoAndAllowsItsRange() {
    Setting idle = Setting.durationOrOff("cluster.passivate-idle-after", "passivateIdleAfter", Duration.ofSeconds(1),
        Duration.ofDays(365), "1 s..365 days", "idle time");
    assertEquals("must be a duration in 1 s..365 days, or off", idle.allowed());
    assertTrue(idle.isOff("off"));
    assertTrue(idle.isOff(false));
    assertFalse(idle.isOff("10 s"));
    assertTrue(idle.allows(Duration.ofMinutes(10)));
    assertFalse(idle.allows(Duration.ofMillis(10)));
    Setting plain = Setting.duration("x.wait", "wait", Duration.ZERO, Duration.ofHours(1), "0..1 hour", "a wait");
    assertFalse(plain.isOff("off"), "a duration that may not be off is never off");
  }

  @Test
  void aNumberWithOnlyALowerBoundSaysSo() {
    Setting every = Setting.atLeast("replication.snapshot-every-entries", "snapshotEveryEntries", 100, "entries");
    assertEquals("at least 100", every.range());
    assertEquals("must be an integer of at least 100", every.allowed());
    assertTrue(every.allows(100));
    assertTrue(every.allows(Long.MAX_VALUE));
    assertFalse(every.allows(99));
  }

  @Test
  void aNumberWithASpecialValueAllowsItBesideItsRange() {
    Setting restarts = Setting.integerOr("projection.x.max-restarts", "maxRestarts", -1, "-1 (restart forever)", 0,
        Integer.MAX_VALUE, "restarts");
    assertTrue(restarts.allows(-1));
    assertTrue(restarts.allows(0));
    assertTrue(restarts.allows(Integer.MAX_VALUE));
    assertFalse(restarts.allows(-2));
    assertEquals("must be -1 (restart forever) or an integer in 0..2147483647", restarts.allowed());
  }
}
