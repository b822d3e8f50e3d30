package io.commitlane.testkit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A random history of writes to a small key set, generated from a seed (so a crash workload in
 * another JVM and the test that checks it build the same one): steps of concurrent commits to
 * disjoint keys, some logged (to one of several logs) and some not, non-transactional writes,
 * flushes and clean reopens. Run it with {@link RecoveryRunner}, check what a database holds
 * afterwards with {@link RecoveryModel}.
 *
 * @param keys how many keys ({@code k0}, {@code k1}, ...)
 * @param logs how many transaction logs ({@code log0}, ...)
 * @param steps what happens, in order
 */
public record RecoveryHistory(int keys, int logs, List<Step> steps) {
  /** What one step does. */
  public sealed interface Step permits Burst, PlainWrite, Flush, Reopen {}

  /** Commits submitted together (they may form one merged group); their key sets are disjoint. */
  public record Burst(List<Commit> commits) implements Step {}

  /** A non-transactional write (never logged). */
  public record PlainWrite(Commit write) implements Step {}

  /** A RocksDB flush. */
  public record Flush() implements Step {}

  /** A clean close and reopen. */
  public record Reopen() implements Step {}

  /**
   * One commit: its number (unique in the history), the log it uses or null, and its writes in
   * order (key to value; a null value removes the key).
   */
  public record Commit(int id, String log, Map<String, String> writes) {
    /** Whether it appends a record to a transaction log. */
    public boolean logged() {
      return log != null;
    }
  }

  /** The history of {@code seed}: the same seed gives the same history in every JVM. */
  public static RecoveryHistory generate(long seed) {
    Random r = new Random(seed);
    int keys = 8 + r.nextInt(9);
    int logs = 1 + r.nextInt(3);
    int length = 10 + r.nextInt(30);
    List<Step> steps = new ArrayList<>();
    int id = 0;
    for (int s = 0; s < length; s++) {
      int kind = r.nextInt(20);
      if (kind == 0) {
        steps.add(new Reopen());
      } else if (kind == 1) {
        steps.add(new Flush());
      } else if (kind <= 3) {
        steps.add(new PlainWrite(commit(r, id++, null, shuffledKeys(r, keys), keys)));
      } else {
        List<String> free = shuffledKeys(r, keys);
        List<Commit> burst = new ArrayList<>();
        int size = 1 + r.nextInt(3);
        for (int c = 0; c < size && !free.isEmpty(); c++) {
          String log = r.nextInt(4) == 0 ? null : "log" + r.nextInt(logs);
          burst.add(commit(r, id++, log, free, keys));
        }
        steps.add(new Burst(burst));
      }
    }
    return new RecoveryHistory(keys, logs, steps);
  }

  /** A commit of 1..3 writes to keys taken from {@code free} (removed from it). */
  private static Commit commit(Random r, int id, String log, List<String> free, int keys) {
    Map<String, String> writes = new LinkedHashMap<>();
    int n = Math.min(free.size(), 1 + r.nextInt(3));
    for (int i = 0; i < n; i++) {
      String key = free.remove(free.size() - 1);
      writes.put(key, r.nextInt(5) == 0 ? null : "v" + id + "." + i);
    }
    return new Commit(id, log, writes);
  }

  private static List<String> shuffledKeys(Random r, int keys) {
    List<String> all = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      all.add("k" + k);
    }
    Collections.shuffle(all, r);
    return all;
  }

  public List<String> keyNames() {
    List<String> out = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      out.add("k" + k);
    }
    return out;
  }

  public List<String> logNames() {
    List<String> out = new ArrayList<>();
    for (int l = 0; l < logs; l++) {
      out.add("log" + l);
    }
    return out;
  }
}
