package io.commitlane.testkit;

import io.commitlane.testkit.RecoveryHistory.Burst;
import io.commitlane.testkit.RecoveryHistory.Commit;
import io.commitlane.testkit.RecoveryHistory.Flush;
import io.commitlane.testkit.RecoveryHistory.PlainWrite;
import io.commitlane.testkit.RecoveryHistory.Reopen;
import io.commitlane.testkit.RecoveryHistory.Step;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
    return checkCrash(h, new Outcomes(succeeded, failed, Set.of(), Set.of()), walOn, durableThrough, recovered, null);
  }

  /**
   * What a run learned of its commits, by id.
   *
   * @param succeeded acknowledged
   * @param failed failed before writing anything
   * @param unknown written to RocksDB but reported not durable: each is there whole or not at all,
   *     wherever it is in commit order
   * @param recordless acknowledged (or found there after a reopen) without a record in their log:
   *     RocksDB kept them while the log lost the record
   */
  public record Outcomes(Set<Integer> succeeded, Set<Integer> failed, Set<Integer> unknown, Set<Integer> recordless) {}

  /**
   * {@link #checkCrash(RecoveryHistory, Set, Set, boolean, int, Map)} with commits of unknown
   * outcome and, unless {@code feed} is null, the records read from every log after the reopen
   * (commit ids in log order, by log name): the same prefix must explain them too ({@link
   * #checkFeed}), where a commit in flight at the kill, of unknown outcome or recordless may be
   * in the database without its record (RocksDB kept it, the log lost it), never a record without
   * its commit.
   */
  public static String checkCrash(RecoveryHistory h, Outcomes outcomes, boolean walOn, int durableThrough,
      Map<String, String> recovered, Map<String, List<Integer>> feed) {
    Set<Integer> succeeded = outcomes.succeeded();
    Set<Integer> failed = outcomes.failed();
    Set<Integer> unknown = outcomes.unknown();
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
      List<Integer> open = new ArrayList<>(); // unknown outcomes before p: each there or not
      for (int s = 0; s < p; s++) {
        for (Commit c : commitsOf(steps.get(s))) {
          if (unknown.contains(c.id())) {
            open.add(c.id());
          }
        }
      }
      Set<Integer> mayLackRecord = new HashSet<>(unknown);
      mayLackRecord.addAll(outcomes.recordless());
      inFlight.forEach(c -> mayLackRecord.add(c.id()));
      for (int u : walOn ? List.of(p) : durablePoints) {
        for (int kept = 0; kept < (1 << open.size()); kept++) {
          Set<Integer> keptUnknown = new HashSet<>();
          for (int i = 0; i < open.size(); i++) {
            if ((kept & (1 << i)) != 0) {
              keptUnknown.add(open.get(i));
            }
          }
          for (int mask = 0; mask < (1 << inFlight.size()); mask++) {
            List<Commit> prefix = prefix(h, p, u, mask, succeeded, failed, unknown, keptUnknown, walOn);
            if (prefix != null && apply(prefix).equals(recovered)
                && (feed == null || checkFeed(h, prefix, mayLackRecord, feed) == null)) {
              return null;
            }
          }
        }
      }
    }
    return "no prefix of the history (with the step in flight partly applied"
        + (walOn ? "" : " and unflushed unlogged commits missing")
        + (unknown.isEmpty() ? "" : " and commits of unknown outcome " + unknown + " there or not")
        + ") explains " + recovered + (feed == null ? "" : " with the logs holding " + feed)
        + "; acknowledged " + succeeded + ", failed " + failed;
  }

  /**
   * The commits of the prefix that ends in step {@code p} (with the commits of step {@code p} in
   * {@code mask}), unlogged ones with the WAL off only before {@code u}, unknown ones only if
   * kept; null if it leaves out an acknowledged durable commit or holds a failed one.
   */
  private static List<Commit> prefix(RecoveryHistory h, int p, int u, int mask, Set<Integer> succeeded,
      Set<Integer> failed, Set<Integer> unknown, Set<Integer> keptUnknown, boolean walOn) {
    List<Step> steps = h.steps();
    List<Commit> prefix = new ArrayList<>();
    for (int s = 0; s < p; s++) {
      for (Commit c : commitsOf(steps.get(s))) {
        if (failed.contains(c.id())) {
          continue;
        }
        if (unknown.contains(c.id())) {
          if (keptUnknown.contains(c.id())) {
            prefix.add(c);
          }
          continue;
        }
        boolean durable = c.logged() || s < u;
        if (durable) {
          prefix.add(c);
        } else if (succeeded.contains(c.id()) && walOn) {
          return null;
        }
      }
    }
    List<Commit> inFlight = p < steps.size() ? commitsOf(steps.get(p)) : List.of();
    for (int i = 0; i < inFlight.size(); i++) {
      Commit c = inFlight.get(i);
      boolean in = (mask & (1 << i)) != 0;
      if (in && (failed.contains(c.id()) || (!c.logged() && !walOn))) {
        return null; // a failed commit never lands; an unlogged one with the WAL off is not durable yet
      } else if (!in && succeeded.contains(c.id()) && (c.logged() || walOn)) {
        return null; // acknowledged and durable: must be there
      } else if (in) {
        prefix.add(c);
      }
    }
    // Acknowledged durable commits after step p would make this prefix too short.
    for (int s = p + 1; s < steps.size(); s++) {
      for (Commit c : commitsOf(steps.get(s))) {
        if (succeeded.contains(c.id()) && (c.logged() || walOn)) {
          return null;
        }
      }
    }
    return prefix;
  }

  /**
   * Checks what the logs hold against the commits the database holds ({@code held}): each log
   * returns exactly the records of the held commits that used it, each once, in an order that
   * keeps the order of the history's steps (commits of one step ran concurrently, in any order).
   * A held commit in {@code mayLackRecord} may have no record; a record never belongs to a commit
   * that is not held (a failed one, say). {@code feed} maps a log's name to the commit ids of its
   * records in log order. Returns null when they agree, else a description.
   */
  public static String checkFeed(RecoveryHistory h, List<Commit> held, Set<Integer> mayLackRecord,
      Map<String, List<Integer>> feed) {
    Map<Integer, Integer> stepOf = new HashMap<>();
    for (int s = 0; s < h.steps().size(); s++) {
      for (Commit c : commitsOf(h.steps().get(s))) {
        stepOf.put(c.id(), s);
      }
    }
    Map<Integer, Commit> byId = new HashMap<>();
    held.forEach(c -> byId.put(c.id(), c));
    for (String log : h.logNames()) {
      List<Integer> read = feed.getOrDefault(log, List.of());
      Set<Integer> seen = new HashSet<>();
      int lastStep = -1;
      for (int id : read) {
        Commit c = byId.get(id);
        if (c == null || !log.equals(c.log())) {
          return "log " + log + " returns the record of commit " + id + ", which the database does not hold: " + read;
        }
        if (!seen.add(id)) {
          return "log " + log + " returns the record of commit " + id + " twice: " + read;
        }
        int step = stepOf.get(id);
        if (step < lastStep) {
          return "log " + log + " returns commit " + id + " after a commit of a later step: " + read;
        }
        lastStep = step;
      }
      for (Commit c : held) {
        if (log.equals(c.log()) && !seen.contains(c.id()) && !mayLackRecord.contains(c.id())) {
          return "log " + log + " lacks the record of commit " + c.id() + ", which the database holds: " + read;
        }
      }
    }
    return null;
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
