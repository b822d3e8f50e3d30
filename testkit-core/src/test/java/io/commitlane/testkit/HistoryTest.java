package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
}
