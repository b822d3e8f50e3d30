package io.commitlane.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Checks a database recovered after a crash against what the workload attempted and what it was
 * told succeeded: every acknowledged transaction is fully visible, and no transaction is partly
 * visible. Each transaction's writes must be to keys no other transaction writes (the crash
 * workloads here write unique keys), so visibility is a plain read. Returns the violations, each
 * a sentence; empty means the recovery kept its promises.
 */
public final class RecoveryCheck {
  private RecoveryCheck() {}

  /**
   * @param attempted every transaction the workload may have committed, with its writes (key to value)
   * @param acknowledged the ids the workload was told committed before the kill
   * @param read reads a key from the recovered database (null: absent)
   */
  public static List<String> check(Map<String, Map<String, String>> attempted, Set<String> acknowledged,
      Function<String, String> read) {
    Objects.requireNonNull(read, "read");
    List<String> violations = new ArrayList<>();
    for (String id : acknowledged) {
      if (!attempted.containsKey(id)) {
        violations.add("acknowledged transaction " + id + " is not among the attempted ones");
      }
    }
    for (var e : attempted.entrySet()) {
      int visible = 0;
      List<String> missing = new ArrayList<>();
      for (var w : e.getValue().entrySet()) {
        if (Objects.equals(w.getValue(), read.apply(w.getKey()))) {
          visible++;
        } else {
          missing.add(w.getKey());
        }
      }
      boolean acked = acknowledged.contains(e.getKey());
      if (acked && visible < e.getValue().size()) {
        violations.add("acknowledged transaction " + e.getKey() + " lost " + missing.size() + " of its "
            + e.getValue().size() + " writes, e.g. " + missing.get(0));
      } else if (visible > 0 && visible < e.getValue().size()) {
        violations.add("transaction " + e.getKey() + " is partly visible: " + visible + " of " + e.getValue().size()
            + " writes, missing e.g. " + missing.get(0));
      }
    }
    return violations;
  }
}
