package io.commitlane.persistence.internal.query;

import io.commitlane.annotation.InternalApi;
import org.apache.pekko.persistence.query.NoOffset;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.Sequence;

/**
 * INTERNAL API. Query offsets are commit positions: {@code Sequence(p)} of the last element a consumer handled; a query
 * started from it resumes after it (exclusive), with no gap and no duplicate, across restarts.
 */
@InternalApi
public final class Offsets {
  private Offsets() {}

  /** The position a query from {@code offset} starts after (-1: from the beginning). */
  public static long after(Offset offset) {
    if (offset == null || offset == NoOffset.getInstance()) {
      return -1;
    }
    if (offset instanceof Sequence s) {
      if (s.value() < -1) {
        throw new IllegalArgumentException("offset " + s + " is not a commit position: use NoOffset or an offset this"
            + " journal emitted");
      }
      return s.value();
    }
    throw new IllegalArgumentException("commitlane's queries take NoOffset or a Sequence offset they emitted (a commit"
        + " position), not " + offset.getClass().getSimpleName());
  }
}
