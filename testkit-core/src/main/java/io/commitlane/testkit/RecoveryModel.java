package io.commitlane.testkit;

import io.commitlane.testkit.RecoveryHistory.Burst;
import io.commitlane.testkit.RecoveryHistory.Commit;
import io.commitlane.testkit.RecoveryHistory.Flush;
import io.commitlane.testkit.RecoveryHistory.PlainWrite;
import io.commitlane.testkit.RecoveryHistory.Reopen;
import io.commitlane.testkit.RecoveryHistory.Step;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The state a history must leave. After a clean close and reopen: exactly the state of every
 * commit that succeeded, in commit order. After a kill: the state of a prefix of commit order
 * holding every acknowledged commit, where the step in flight at the kill may be partly there (its
 * commits ran concurrently, to disjoint keys) and, with the RocksDB WAL off, commits that were not
 * logged may be missing if no flush or reopen came after them (that is what an unlogged commit
 * with the WAL off promises: nothing until a flush).
 */
public final class RecoveryModel {
  private RecoveryModel() {}

  /** The state after applying {@code commits} in order. */
  public static Map<String, String> apply(List<Commit> commits) {
    Map<String, String> state = new HashMap<>();
    for (Commit c : commits) {
      state.putAll(c.writes());
    }
    state.values().removeIf(Objects::isNull);
    return state;
  }

  /**
   * Checks a state recovered after a kill. {@code succeeded} holds the ids of commits that
   * succeeded before the kill (acknowledged); {@code failed} the ids that failed (they must not be
   * visible unless they were in flight, which a failed commit never is for long: a conflict
   * writes nothing). {@code durableThrough} is the number of steps before the last flush or
   * reopen that completed before the kill (unlogged commits before it must be there). Returns null
   * when some allowed prefix explains the state, else a description.
   */
  public static String checkCrash(RecoveryHistory h, Set<Integer> succeeded, Set<Integer> failed, boolean walOn,
      int durableThrough, Map<String, String> recovered) {
    List<Step> steps = h.steps();
    for (int p = 0; p <= steps.size(); p++) {
      // Steps before p ran fully; step p (if any) may be partly applied; none after.
      List<Integer> durablePoints = new ArrayList<>();
      if (durableThrough <= p) {
        durablePoints.add(durableThrough);
      }
      for (int s = durableThrough; s < p; s++) {
        if (steps.get(s) instanceof Flush || steps.get(s) instanceof Reopen) {
          durablePoints.add(s + 1);
        }
      }
      List<Commit> inFlight = p < steps.size() ? commitsOf(steps.get(p)) : List.of();
      for (int u : walOn ? List.of(p) : durablePoints) {
        for (int mask = 0; mask < (1 << inFlight.size()); mask++) {
          List<Commit> prefix = new ArrayList<>();
          boolean ok = true;
          for (int s = 0; s < p && ok; s++) {
            for (Commit c : commitsOf(steps.get(s))) {
              if (failed.contains(c.id())) {
                continue;
              }
              boolean durable = c.logged() || s < u;
              if (durable) {
                prefix.add(c);
              } else if (succeeded.contains(c.id()) && walOn) {
                ok = false;
              }
            }
          }
          for (int i = 0; i < inFlight.size() && ok; i++) {
            Commit c = inFlight.get(i);
            boolean in = (mask & (1 << i)) != 0;
            if (in && (failed.contains(c.id()) || (!c.logged() && !walOn))) {
              ok = false; // a failed commit never lands; an unlogged one with the WAL off is not durable yet
            } else if (!in && succeeded.contains(c.id()) && (c.logged() || walOn)) {
              ok = false; // acknowledged and durable: must be there
            } else if (in) {
              prefix.add(c);
            }
          }
          if (!ok) {
            continue;
          }
          // Acknowledged durable commits after step p would make this prefix too short.
          for (int s = p + 1; s < steps.size() && ok; s++) {
            for (Commit c : commitsOf(steps.get(s))) {
              if (succeeded.contains(c.id()) && (c.logged() || walOn)) {
                ok = false;
              }
            }
          }
          if (ok && apply(prefix).equals(recovered)) {
            return null;
          }
        }
      }
    }
    return "no prefix of the history (with the step in flight partly applied"
        + (walOn ? "" : " and unflushed unlogged commits missing") + ") explains " + recovered
        + "; acknowledged " + succeeded + ", failed " + failed;
  }

  /** The commits (or the plain write) a step makes. */
  public static List<Commit> commitsOf(Step step) {
    if (step instanceof Burst b) {
      return b.commits();
    }
    if (step instanceof PlainWrite w) {
      return List.of(w.write());
    }
    return List.of();
  }

  /** The state the database holds for the history's keys (absent keys are not in the map). */
  public static Map<String, String> read(RecoveryHistory h, java.util.function.Function<String, String> get) {
    Map<String, String> out = new HashMap<>();
    for (String k : h.keyNames()) {
      String v = get.apply(k);
      if (v != null) {
        out.put(k, v);
      }
    }
    return out;
  }
}
