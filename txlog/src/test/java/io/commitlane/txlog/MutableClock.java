package io.commitlane.txlog;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand, for rotation by age and retention. */
final class MutableClock extends Clock {
  private volatile long millis;

  MutableClock(long startMillis) {
    this.millis = startMillis;
  }

  void advance(Duration by) {
    millis += by.toMillis();
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
