package io.commitlane.txlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LogPositionTest {

  @Test
  void packsSegmentAndOffsetAndOrdersLikeTheLog() {
    long p = LogPosition.of(7, 1234);
    assertEquals(7, LogPosition.segment(p));
    assertEquals(1234, LogPosition.offset(p));
    assertEquals("7:1234", LogPosition.toString(p));
    assertTrue(LogPosition.of(7, 0xFFFF_FFFFL) < LogPosition.of(8, 0));
    assertTrue(LogPosition.of(7, 10) < LogPosition.of(7, 11));
    assertEquals(0xFFFF_FFFFL, LogPosition.offset(LogPosition.of(Integer.MAX_VALUE, 0xFFFF_FFFFL)));
  }

  @Test
  void rejectsOutOfRangeParts() {
    assertThrows(IllegalArgumentException.class, () -> LogPosition.of(-1, 0));
    assertThrows(IllegalArgumentException.class, () -> LogPosition.of(0, 1L << 32));
    assertThrows(IllegalArgumentException.class, () -> LogPosition.of(1L << 31, 0));
  }
}
