package io.commitlane.bench.harness;

import java.util.SplittableRandom;

/**
 * What each commit writes as its value. A worker asks for its {@link Source} once, on its own
 * thread and from its own generator, then takes one value per commit. A value is never changed
 * once made: a transaction may hold it until it completes, and several may hold the same one.
 */
public interface CommitValues {
  Source forWorker(SplittableRandom random);

  /** One worker's values. */
  interface Source {
    byte[] next(SplittableRandom random);
  }

  /** One random value of {@code size} bytes per worker, written by all its commits: what the benchmarks have always written. */
  static CommitValues fixed(int size) {
    return random -> {
      byte[] value = BenchTransactions.randomValue(random, size);
      return r -> value;
    };
  }

  /**
   * A value of a random size in {@code [min, max]} per commit, drawn from one table of {@code
   * count} random (incompressible) values made once and shared by every worker, so no commit
   * allocates one.
   */
  static CommitValues mixed(int min, int max, int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    byte[][] table = new byte[count][];
    for (int i = 0; i < count; i++) {
      table[i] = new byte[min + random.nextInt(max - min + 1)];
      random.nextBytes(table[i]);
    }
    return worker -> r -> table[r.nextInt(table.length)];
  }
}
