package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class HistoryTest {
  private static Map<String, String> m(String... kv) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put(kv[i], kv[i + 1]);
    }
    return out;
  }

  @Test
  void acceptsASerialHistory() {
    History h = new History();
    h.committed("t1", m("n", null), m("n", "1"), 1);
    h.committed("t2", m("n", "1"), m("n", "2"), 2);
    h.failed("t3", m("n", "1"), m("n", "2b"));
    assertEquals(List.of(), h.check(m("n", "2")));
  }

  @Test
  void flagsAHandmadeLostUpdate() {
    History h = new History();
    // Both read 0 and wrote 1: one increment is lost, and no serial order explains both reads.
    h.committed("t1", m("n", "0"), m("n", "1a"), 1);
    h.committed("t2", m("n", "0"), m("n", "1b"), 2);
    List<String> v = h.check(m("n", "1b"));
    assertEquals(1, v.size());
    assertTrue(v.get(0).startsWith("not serializable"), v.get(0));
  }

  @Test
  void flagsAFinalStateThatLostACommittedWrite() {
    History h = new History();
    h.committed("t1", m(), m("a", "1"), 1);
    h.committed("t2", m(), m("a", "2"), 2);
    List<String> v = h.check(m("a", "1"));
    assertEquals(1, v.size());
    assertTrue(v.get(0).contains("lost update"), v.get(0));
  }

  @Test
  void flagsWriteSkew() {
    History h = new History();
    h.committed("t1", m("x", "0", "y", "0"), m("x", "1"), 1);
    h.committed("t2", m("x", "0", "y", "0"), m("y", "1"), 2);
    assertTrue(h.check(null).get(0).startsWith("not serializable"));
  }

  @Test
  void tellsSerializableButNotInVersionOrderApart() {
    History h = new History();
    h.committed("t1", m("a", "1"), m(), 1);    // read what t2 wrote, yet versioned before it
    h.committed("t2", m(), m("a", "1"), 2);
    assertTrue(h.check(null).get(0).startsWith("serializable, but not in commit-version order"));
  }

  private static History.RangeRead scan(String from, String to, String... kv) {
    return new History.RangeRead(from, to, new TreeMap<>(m(kv)));
  }

  @Test
  void acceptsScansThatSawWhatTheSerialOrderGives() {
    History h = new History();
    h.committed("t1", m(), m("order/a/1", "x"), 1);
    h.committed("t2", m(), List.of(scan("order/a/", "order/a0", "order/a/1", "x")), m("order/a/2", "y"), 2);
    h.committed("t3", m(), List.of(scan("order/a/", null, "order/a/1", "x", "order/a/2", "y")), m(), 3);
    assertEquals(List.of(), h.check(m("order/a/1", "x", "order/a/2", "y")));
  }

  @Test
  void flagsAPhantomBetweenTwoScanners() {
    History h = new History();
    // Both counted the customer's orders as none and each added one: no serial order lets both see none.
    h.committed("t1", m(), List.of(scan("order/a/", "order/a0")), m("order/a/1", "x"), 1);
    h.committed("t2", m(), List.of(scan("order/a/", "order/a0")), m("order/a/2", "y"), 2);
    List<String> v = h.check(null);
    assertEquals(1, v.size());
    assertTrue(v.get(0).startsWith("not serializable") && v.get(0).contains("phantom"), v.get(0));
  }

  @Test
  void flagsAScanThatMissedARemove() {
    History h = new History();
    h.committed("t1", m(), m("k1", "a", "k2", "b"), 1);
    h.committed("t2", m(), m("k2", null), 2);
    h.committed("t3", m(), List.of(scan("k", "l", "k1", "a", "k2", "b")), m(), 3);
    List<String> v = h.check(null);
    assertTrue(v.get(0).contains("scanned [k, l)"), v.get(0));
  }

  @Test
  void keysOutsideTheScannedIntervalDoNotMatter() {
    History h = new History();
    h.committed("t1", m(), List.of(scan("b", "c")), m("a", "1", "c", "2"), 1);
    h.committed("t2", m(), List.of(scan("b", "c")), m("z", "3"), 2);
    assertEquals(List.of(), h.check(null));
  }
}
