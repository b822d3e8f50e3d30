package io.commitlane.txlog.internal.append;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The completion watermark against a model, one completion at a time in random orders: it is
 * always exactly the end of the contiguous completed prefix (so it never passes a hole), never
 * goes back; small rings force many
 * wrap-arounds, where stale links from earlier laps must not count.
 */
class LinkBufWatermarkProperties {

  /** A range of the number line and whether it completed. */
  private record Range(long from, long to) {}

  @Property(tries = 300)
  void watermarkIsTheCompletedPrefixAcrossWrapArounds(
      @ForAll @IntRange(min = 1, max = 5) int capacityLog2,
      @ForAll @IntRange(min = 1, max = 400) int ranges,
      @ForAll @IntRange(min = 1, max = 4) int maxLength,
      @ForAll long seed) {
    int capacity = 1 << capacityLog2;
    Random random = new Random(seed);
    long start = random.nextInt(1000);
    List<Range> all = new ArrayList<>();
    long at = start;
    for (int i = 0; i < ranges; i++) {
      int length = 1 + random.nextInt(Math.min(maxLength, capacity));
      all.add(new Range(at, at + length));
      at += length;
    }
    LinkBufWatermark wm = new LinkBufWatermark(capacity, start);
    boolean[] completed = new boolean[ranges];
    int prefix = 0; // ranges [0, prefix) completed, range prefix not
    long last = start;
    int done = 0;
    while (done < ranges) {
      // Choose among the ranges that fit the ring's horizon and are not completed yet.
      List<Integer> candidates = new ArrayList<>();
      for (int i = prefix; i < ranges && wm.fits(all.get(i).to); i++) {
        if (!completed[i]) {
          candidates.add(i);
        }
      }
      assertTrue(!candidates.isEmpty(), "the first incomplete range always fits");
      int pick = candidates.get(random.nextInt(candidates.size()));
      Range r = all.get(pick);
      assertTrue(!wm.isCompleted(r.from, r.to), "a stale link from an earlier lap reads as done");
      wm.add(r.from, r.to);
      completed[pick] = true;
      done++;
      assertTrue(wm.isCompleted(r.from, r.to));
      long w = wm.advance();
      while (prefix < ranges && completed[prefix]) {
        prefix++;
      }
      long expected = prefix == 0 ? start : all.get(prefix - 1).to;
      assertEquals(expected, w, "watermark is the end of the completed prefix");
      assertEquals(expected, wm.watermark());
      assertTrue(w >= last, "never regresses");
      last = w;
    }
    assertEquals(at, wm.watermark());
  }

  @Property(tries = 100)
  void rangesBeyondTheHorizonOrBelowTheWatermarkAreRefused(
      @ForAll @IntRange(min = 1, max = 6) int capacityLog2, @ForAll @IntRange(min = 0, max = 50) int advanced) {
    int capacity = 1 << capacityLog2;
    LinkBufWatermark wm = new LinkBufWatermark(capacity, 0);
    for (int i = 0; i < advanced; i++) {
      wm.add(i, i + 1);
      wm.advance();
    }
    long w = wm.watermark();
    assertEquals(advanced, w);
    assertTrue(wm.fits(w + capacity));
    assertTrue(!wm.fits(w + capacity + 1));
    assertThrows(IllegalArgumentException.class, () -> wm.add(w + capacity, w + capacity + 1));
    if (w > 0) {
      assertThrows(IllegalArgumentException.class, () -> wm.add(w - 1, w));
    }
    assertThrows(IllegalArgumentException.class, () -> wm.add(w, w));
  }
}
