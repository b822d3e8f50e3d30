package io.commitlane.storage.internal.commit;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The exact record behind per-key validation: for each recently written key, by its 64-bit {@link
 * KeyHash}, the commit-clock version of its last write. {@link VersionTable} says a bucket was
 * written after a transaction's baseline; this says whether the transaction's own key was.
 *
 * <p>Invariant, per partition: every write of a key whose version is above the partition's {@code
 * floor} is recorded under the key's hash with its version or a later one. So for a baseline {@code
 * b}: a recorded version answers exactly ({@code > b}: written since), an absent hash with {@code
 * floor <= b} means not written since, and an absent hash with {@code floor > b} cannot be
 * answered (then the caller assumes a conflict).
 *
 * <p>Why a 64-bit fingerprint is safe: equal hashes mean equal low halves, hence one lock bucket,
 * so writes of keys sharing a hash are serialized and stamped in increasing order; their shared
 * entry holds the newest of their versions. A lookup of either key then sees a version at least
 * that of its own last write: a shared hash can add a false conflict, never hide a real one.
 *
 * <p>Concurrency: a key's entry changes only under the key's bucket lock (or the serial commit
 * lock), which its validator also holds, so the answer for a key cannot change while it is being
 * validated. Partitions (by hash) have their own monitor, held for one look-up or insert, because
 * keys of different buckets share a partition.
 *
 * <p>Memory and forgetting: a partition is an open-addressing table that starts at {@value
 * #MIN_SLOTS} slots and is rebuilt when three quarters full. Every entry a rebuild drops raises the
 * floor to its version, so forgetting is always sound; what is forgotten only decides precision. A
 * rebuild drops every entry at or below the oldest live baseline ({@link LiveBaselines}; no live
 * transaction can ask about it, so nothing is lost) and sizes the table to what is left, shrinking
 * as well as growing. Only when more than {@value
 * #MAX_SLOTS}/2 entries of one partition are still needed (a transaction held open while much is
 * written) does it forget its oldest half and raise its floor: transactions older than that floor
 * then get conservative conflicts, counted in {@link #conservativeAnswers}. At most {@value
 * #PARTITIONS} x {@value #MAX_SLOTS} slots of 16 bytes: 4 MiB per database, whatever the bucket count.
 */
public final class RecentWrites {
  static final int PARTITIONS = 64;
  static final int MIN_SLOTS = 64;
  static final int MAX_SLOTS = 4096;
  private static final int PARTITION_BITS = Integer.numberOfTrailingZeros(PARTITIONS);

  /** {@link #check} answers. */
  public static final int NOT_WRITTEN = 0;
  static final int WRITTEN = 1;
  static final int UNKNOWN = 2;

  private final Partition[] partitions = new Partition[PARTITIONS];
  private final LongSupplier oldestLiveBaseline;
  /** Entries forgotten while still needed (partition overflow). */
  final LongAdder forgotten = new LongAdder();
  /** Look-ups the record could not answer (a forgotten range): the caller counted a conflict. */
  public final LongAdder conservativeAnswers = new LongAdder();

  /** @param oldestLiveBaseline at most the baseline of every live and future transaction */
  public RecentWrites(LongSupplier oldestLiveBaseline) {
    this.oldestLiveBaseline = oldestLiveBaseline;
    for (int i = 0; i < PARTITIONS; i++) {
      partitions[i] = new Partition();
    }
  }

  /** Record a write of {@code hash} at {@code version}; the caller holds the key's bucket lock. */
  public void record(long hash, long version) {
    long h = key(hash);
    partitionOf(h).record(h, slotBits(h), version, this);
  }

  /**
   * Whether the key was written after {@code baseline}: {@link #WRITTEN}, {@link #NOT_WRITTEN}, or
   * {@link #UNKNOWN} when the record no longer reaches back that far. The caller holds the key's
   * bucket lock.
   */
  public int check(long hash, long baseline) {
    long h = key(hash);
    int answer = partitionOf(h).check(h, slotBits(h), baseline);
    if (answer == UNKNOWN) {
      conservativeAnswers.increment();
    }
    return answer;
  }

  /** Slots allocated in all partitions: 16 bytes each. */
  public long slots() {
    long n = 0;
    for (Partition p : partitions) {
      n += p.capacity();
    }
    return n;
  }

  /** Entries held in all partitions. */
  long entries() {
    long n = 0;
    for (Partition p : partitions) {
      n += p.size();
    }
    return n;
  }

  /** 0 marks a free slot; a key hashing to 0 shares 1's entry (a shared hash: see the class comment). */
  private static long key(long hash) {
    return hash == 0 ? 1 : hash;
  }

  private Partition partitionOf(long h) {
    return partitions[(int) (h >>> 32) & (PARTITIONS - 1)];
  }

  /** Bits for the probe start: above the partition bits of the high half, which buckets do not use. */
  private static int slotBits(long h) {
    return (int) (h >>> (32 + PARTITION_BITS));
  }

  private long oldestLiveBaseline() {
    return oldestLiveBaseline.getAsLong();
  }

  /** One open-addressing table (linear probing) with its floor; every method holds its monitor. */
  private static final class Partition {
    /** Null until the first write; then a power of two, at least {@link #MIN_SLOTS}. */
    private long[] keys;
    private long[] versions;
    private int size;
    /** Every write above this version is recorded (see the class invariant). */
    private long floor;

    synchronized int check(long h, int bits, long baseline) {
      if (keys != null) {
        int mask = keys.length - 1;
        for (int i = bits & mask; keys[i] != 0; i = (i + 1) & mask) {
          if (keys[i] == h) {
            return versions[i] > baseline ? WRITTEN : NOT_WRITTEN;
          }
        }
      }
      return floor > baseline ? UNKNOWN : NOT_WRITTEN;
    }

    synchronized void record(long h, int bits, long version, RecentWrites owner) {
      if (keys == null) {
        keys = new long[MIN_SLOTS];
        versions = new long[MIN_SLOTS];
      }
      int mask = keys.length - 1;
      int i = bits & mask;
      for (; keys[i] != 0; i = (i + 1) & mask) {
        if (keys[i] == h) {
          versions[i] = Math.max(versions[i], version);
          return;
        }
      }
      if ((size + 1) * 4 > keys.length * 3) {
        rebuild(owner);
        insert(h, bits, version);
      } else {
        keys[i] = h;
        versions[i] = version;
      }
      size++;
    }

    synchronized int capacity() {
      return keys == null ? 0 : keys.length;
    }

    synchronized int size() {
      return size;
    }

    /**
     * Drop what no live transaction needs, then size the table to twice what is left (within
     * bounds); beyond the bound, forget the older half and raise the floor over it.
     */
    private void rebuild(RecentWrites owner) {
      long oldest = owner.oldestLiveBaseline();
      long[] keptKeys = new long[size];
      long[] keptVersions = new long[size];
      int kept = 0;
      for (int i = 0; i < keys.length; i++) {
        if (keys[i] == 0) {
          continue;
        }
        if (versions[i] > oldest) {
          keptKeys[kept] = keys[i];
          keptVersions[kept++] = versions[i];
        } else {
          floor = Math.max(floor, versions[i]);
        }
      }
      int limit = MAX_SLOTS / 2 - 1; // room for the entry being inserted, at half load
      if (kept > limit) {
        long[] sorted = Arrays.copyOf(keptVersions, kept);
        Arrays.sort(sorted);
        long cut = sorted[kept - limit - 1]; // forget everything at or below: at least kept - limit entries
        floor = Math.max(floor, cut);
        int n = 0;
        for (int i = 0; i < kept; i++) {
          if (keptVersions[i] > cut) {
            keptKeys[n] = keptKeys[i];
            keptVersions[n++] = keptVersions[i];
          }
        }
        owner.forgotten.add(kept - n);
        kept = n;
      }
      int slots = Math.max(MIN_SLOTS, Integer.highestOneBit(Math.max(1, (kept + 1) * 2 - 1)) << 1);
      keys = new long[Math.min(MAX_SLOTS, slots)];
      versions = new long[keys.length];
      size = 0;
      for (int i = 0; i < kept; i++) {
        insert(keptKeys[i], slotBits(keptKeys[i]), keptVersions[i]);
        size++;
      }
    }

    /** Insert a hash known to be absent, into a table with room. */
    private void insert(long h, int bits, long version) {
      int mask = keys.length - 1;
      int i = bits & mask;
      while (keys[i] != 0) {
        i = (i + 1) & mask;
      }
      keys[i] = h;
      versions[i] = version;
    }
  }
}
