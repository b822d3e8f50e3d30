package io.commitlane.storage;

import io.commitlane.storage.internal.commit.KeyHash;
import io.commitlane.storage.internal.commit.LiveBaselines;
import io.commitlane.storage.internal.commit.RecentWrites;
import io.commitlane.storage.internal.commit.VersionTable;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The version table's part of a commit, without RocksDB: hash the keys, lock their buckets in
 * sorted order, validate each bucket against the baseline, stamp it, unlock; and the same with
 * what exact per-key validation adds (joining and leaving the live baselines, recording each key
 * in {@link RecentWrites}), plus one per-key look-up for when a bucket is newer than the baseline.
 * In this package (a split package on the classpath, benchmarks only) because these classes are
 * internal. Run: {@code ./commitlane jmh -f 1 -wi 3 -i 5 VersionTable}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class VersionTableBench {
  @Param({"1", "64"})
  int keys;

  @Param({"65536", "1048576"})
  int bucketCount;

  private VersionTable table;
  private long clock = 1;
  private LiveBaselines live;
  private RecentWrites recent;
  private long[] hashes;
  private byte[][] keyBytes;
  /** Scratch for hashAndSort. */
  private int[] scratch;
  /** The keys' distinct buckets, sorted: what a commit locks (a bucket locked twice would deadlock). */
  private int[] buckets;
  private long version;

  @Setup(Level.Trial)
  public void setUp() {
    table = new VersionTable(bucketCount);
    live = new LiveBaselines(() -> clock);
    recent = new RecentWrites(live::oldest);
    SplittableRandom random = new SplittableRandom(42);
    keyBytes = new byte[keys][];
    hashes = new long[keys];
    for (int i = 0; i < keys; i++) {
      keyBytes[i] = ByteBuffer.allocate(8).putLong(random.nextInt(1_000_000)).array();
      hashes[i] = KeyHash.of(0, keyBytes[i]);
    }
    scratch = new int[keys];
    hashAndSort();
    buckets = Arrays.stream(scratch).distinct().toArray();
  }

  /** Hashing keys to buckets and sorting them: what a commit does before it locks. */
  @Benchmark
  public int hashAndSort() {
    for (int i = 0; i < keys; i++) {
      scratch[i] = table.bucketOf(KeyHash.of(0, keyBytes[i]));
    }
    Arrays.sort(scratch);
    return scratch[0];
  }

  /** Lock, validate against the baseline, stamp a newer version, unlock, for the sorted distinct buckets. */
  @Benchmark
  public boolean lockValidateStampUnlock() {
    long baseline = version;
    long next = ++version;
    boolean valid = true;
    for (int b : buckets) {
      table.lock(b);
    }
    for (int b : buckets) {
      valid &= table.version(b) <= baseline;
    }
    for (int b : buckets) {
      table.stampLocked(b, next);
    }
    for (int b : buckets) {
      table.unlock(b);
    }
    return valid;
  }

  /**
   * What a commit of these keys does with exact validation when no bucket is newer (the usual
   * case): join the live baselines, lock, check the buckets, stamp them and record the keys, unlock, leave.
   */
  @Benchmark
  public boolean lockValidateStampRecordUnlock() {
    long generation = live.enter();
    long baseline = clock;
    long next = ++clock;
    boolean valid = true;
    for (int b : buckets) {
      table.lock(b);
    }
    for (int i = 0; i < keys; i++) {
      valid &= table.version(table.bucketOf(hashes[i])) <= baseline || recent.check(hashes[i], baseline) == RecentWrites.NOT_WRITTEN;
    }
    for (int i = 0; i < keys; i++) {
      table.stampLocked(table.bucketOf(hashes[i]), next);
      recent.record(hashes[i], next);
    }
    for (int b : buckets) {
      table.unlock(b);
    }
    live.leave(generation);
    return valid;
  }

  /** The per-key look-up when a key's bucket is newer than the baseline: one partition probe per key. */
  @Benchmark
  public int perKeyLookUps() {
    int written = 0;
    for (int i = 0; i < keys; i++) {
      written += recent.check(hashes[i], 0);
    }
    return written;
  }
}
