package io.commitlane.txlog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MonotonicClockTest {

  @Test
  void staysUniqueAndIncreasingWhenTheWallClockStepsBack() {
    AtomicLong wall = new AtomicLong(1000);
    MonotonicClock clock = new MonotonicClock(wall::get);
    assertEquals(1000, clock.next());
    assertEquals(1001, clock.next()); // same wall millisecond
    wall.set(500); // NTP stepped back
    assertEquals(1002, clock.next());
    wall.set(2000);
    assertEquals(2000, clock.next());
  }

  @Test
  void advancePastKeepsLaterValuesAboveARecoveredTimestamp() {
    MonotonicClock clock = new MonotonicClock(() -> 10);
    clock.advancePast(50);
    assertEquals(51, clock.next());
  }
}
