package io.commitlane.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A record of commit attempts and a checker for them. For each attempt, record what it read
 * (key to the value it saw, null for absent), the ranges it scanned ({@link RangeRead}: the
 * interval and every entry the scan returned in it), what it wrote, and its outcome: committed
 * (with the commit version, which orders commits per key) or failed. Then {@link #check} tells
 * whether the committed transactions are serializable and, if a final state is given, whether
 * it is the state their serial execution produces (no lost update). A range read is a predicate
 * read: the serial order must give exactly the entries the scan saw inside its interval, so a
 * phantom (a key inserted into or removed from a scanned interval by a transaction ordered
 * before the scanner but not seen by it) is a violation like a stale point read.
 *
 * <p>Limits: the values a transaction writes must be unique per key across the history (so a
 * read can be attributed to one writer); serializability is decided by replaying in commit
 * version order, and for histories of at most {@value #EXHAUSTIVE_LIMIT} committed transactions
 * that fail that order, by trying every order. Larger histories that fail the version order are
 * reported as not serializable in that order, which for commitlane (whose serial order is its
 * commit order) is the property that matters.
 */
public final class History {
  public static final int EXHAUSTIVE_LIMIT = 7;

  /** One attempt: what it read (point reads and scanned ranges) and wrote, and how it ended. */
  public record Attempt(String id, Map<String, String> reads, List<RangeRead> ranges, Map<String, String> writes,
      boolean committed, long version) {
    public Attempt {
      ranges = List.copyOf(ranges);
    }

    /** An attempt that scanned no range. */
    public Attempt(String id, Map<String, String> reads, Map<String, String> writes, boolean committed, long version) {
      this(id, reads, List.of(), writes, committed, version);
    }
  }

  /**
   * A scan of the keys {@code from <= key < to} ({@code to} null: no upper end; keys compare as
   * strings) that returned exactly {@code seen}. A scan that stopped at a limit covers the
   * interval up to where it stopped: record {@code to} as the key after the last one it returned
   * (or that key plus {@code "\0"}), not the bound it was asked for.
   */
  public record RangeRead(String from, String to, SortedMap<String, String> seen) {
    public RangeRead {
      Objects.requireNonNull(from, "from");
      seen = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(seen));
    }

    boolean covers(String key) {
      return key.compareTo(from) >= 0 && (to == null || key.compareTo(to) < 0);
    }
  }

  private final List<Attempt> attempts = new ArrayList<>();

  public synchronized void committed(String id, Map<String, String> reads, Map<String, String> writes, long version) {
    attempts.add(new Attempt(id, copyWithNulls(reads), copyWithNulls(writes), true, version));
  }

  /** A committed attempt that also scanned {@code ranges}. */
  public synchronized void committed(String id, Map<String, String> reads, List<RangeRead> ranges, Map<String, String> writes,
      long version) {
    attempts.add(new Attempt(id, copyWithNulls(reads), ranges, copyWithNulls(writes), true, version));
  }

  public synchronized void failed(String id, Map<String, String> reads, Map<String, String> writes) {
    attempts.add(new Attempt(id, copyWithNulls(reads), copyWithNulls(writes), false, -1));
  }

  /** A failed attempt that also scanned {@code ranges} (kept for the record; only committed ones are checked). */
  public synchronized void failed(String id, Map<String, String> reads, List<RangeRead> ranges, Map<String, String> writes) {
    attempts.add(new Attempt(id, copyWithNulls(reads), ranges, copyWithNulls(writes), false, -1));
  }

  public synchronized List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  /**
   * Check the committed attempts. {@code finalState} (may be null) is what the database holds
   * for the keys the history wrote. Returns the violations; empty means the history is serializable
   * and its final state is the serial one.
   */
  public synchronized List<String> check(Map<String, String> finalState) {
    List<Attempt> committed = new ArrayList<>();
    for (Attempt a : attempts) {
      if (a.committed()) {
        committed.add(a);
      }
    }
    committed.sort((x, y) -> Long.compare(x.version(), y.version()));
    List<String> violations = new ArrayList<>();
    String failure = replay(committed, finalState);
    if (failure == null) {
      return violations;
    }
    if (committed.size() <= EXHAUSTIVE_LIMIT && anyOrderWorks(committed, new ArrayList<>(), new boolean[committed.size()], finalState)) {
      violations.add("serializable, but not in commit-version order: " + failure);
      return violations;
    }
    violations.add("not serializable in commit order: " + failure);
    return violations;
  }

  private boolean anyOrderWorks(List<Attempt> all, List<Attempt> order, boolean[] used, Map<String, String> finalState) {
    if (order.size() == all.size()) {
      return replay(order, finalState) == null;
    }
    for (int i = 0; i < all.size(); i++) {
      if (!used[i]) {
        used[i] = true;
        order.add(all.get(i));
        boolean ok = anyOrderWorks(all, order, used, finalState);
        order.remove(order.size() - 1);
        used[i] = false;
        if (ok) {
          return true;
        }
      }
    }
    return false;
  }

  /** Null when the order explains every read and the final state; else what it does not explain. */
  private static String replay(List<Attempt> order, Map<String, String> finalState) {
    TreeMap<String, String> state = new TreeMap<>();
    for (Attempt a : order) {
      for (var r : a.reads().entrySet()) {
        String expected = state.get(r.getKey());
        if (!Objects.equals(expected, r.getValue())) {
          return "transaction " + a.id() + " read " + r.getKey() + " = " + r.getValue() + " but the serial order gives " + expected;
        }
      }
      for (RangeRead range : a.ranges()) {
        SortedMap<String, String> expected = range.to() == null ? state.tailMap(range.from()) : state.subMap(range.from(), range.to());
        if (!expected.equals(range.seen())) {
          return "transaction " + a.id() + " scanned [" + range.from() + ", " + (range.to() == null ? "end" : range.to())
              + ") = " + range.seen() + " but the serial order gives " + expected
              + " (a phantom if a key is missing or extra)";
        }
      }
      for (var w : a.writes().entrySet()) {
        if (w.getValue() == null) {
          state.remove(w.getKey());
        } else {
          state.put(w.getKey(), w.getValue());
        }
      }
    }
    if (finalState != null) {
      for (var e : finalState.entrySet()) {
        if (!Objects.equals(state.get(e.getKey()), e.getValue())) {
          return "final " + e.getKey() + " = " + e.getValue() + " but the serial order gives " + state.get(e.getKey())
              + " (a lost update if a committed write is missing)";
        }
      }
    }
    return null;
  }

  private static Map<String, String> copyWithNulls(Map<String, String> m) {
    return java.util.Collections.unmodifiableMap(new HashMap<>(m));
  }

}
