package io.commitlane.storage.internal.commit;

import io.commitlane.storage.Store;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Phantom protection: the ordered record of recent writes that scanned intervals are validated
 * against. {@link RecentWrites} answers "was this key written?" by hash; a scan also needs "was
 * any key between these two written?", which takes the keys themselves, in order.
 *
 * <p>Invariant, while {@link #active()}: every write whose version is above {@link #floor} is in
 * the record under its key, first as <em>pending</em> (published by its committer, under the
 * commit's locks, before it validates) and then with its version. A scanner's interval therefore
 * conflicts when it holds a pending write of another commit, a version above the scanner's
 * baseline, or when the floor is above the baseline (the record cannot answer: a conservative
 * conflict, counted in {@link #conservativeAnswers}). Writes outside every scanned interval never
 * make a scanner conflict.
 *
 * <p>Why pending first, and why fences. A committer publishes before it validates, so a scanner
 * that validates later sees it. A scanner that passed holds a <em>fence</em> on its intervals
 * until its version is assigned; a committer whose keys fall under another commit's fence waits
 * before publishing. So a write a scanner did not see either makes it conflict or gets a later
 * version: commit order stays a serial order, as bucket locks make it for point reads. A committer
 * waits for fences only before it holds one, and a fence holder never waits for a fence, so the
 * waits cannot form a cycle. Members of one merged group share a token and never wait for each
 * other (a later member is ordered after an earlier one anyway). A group holds a fence as soon as
 * one member's scan passed, and its later members publish after that: a later member that meets
 * another commit's fence does not wait (two groups could then wait for each other's fences) but
 * conflicts, and its transaction runs again.
 *
 * <p>Cost: the record runs only while a transaction with tracked scans is registered ({@link
 * #enterScanning}); otherwise a commit pays one volatile read of {@link #active()}. Turning it on
 * waits until every commit that read it off has finished ({@code quiesce}: those commits hold
 * their locks across that read and their write), then sets the floor to the clock, which covers
 * all of them. A scanner whose baseline is older than that floor conflicts conservatively if it
 * commits.
 */
public final class OrderedWrites {
  /** Keys held before the record drops what no live transaction needs, and beyond that its oldest. */
  public static final int MAX_ENTRIES = 1 << 16;

  private static final class Entry {
    /** Version of the last committed write of the key; 0 when none is recorded. */
    long version;
    /** Commits that published the key and have not finished; {@link #owner} is the first, or null. */
    int pending;
    PendingCommit owner;
  }

  private record Fence(Object token, ScannedRanges ranges) {}

  private final Runnable quiesce;
  private final LongSupplier clock;
  private final LongSupplier oldestLiveBaseline;
  private volatile boolean active;
  /** Guards {@link #scanners} and turning the record on and off; never held with the record's monitor while waiting. */
  private final Object registry = new Object();
  private int scanners;

  /** Guarded by this: keys by store generation, in unsigned byte order. */
  private final Map<Store, TreeMap<byte[], Entry>> keys = new HashMap<>();
  private final List<Fence> fences = new ArrayList<>();
  private long floor;
  private int size;
  /** Interval checks the record could not answer (it forgot that far back, or was off then). */
  public final LongAdder conservativeAnswers = new LongAdder();

  /**
   * @param quiesce returns once every commit that holds its locks at the call has released them
   * @param clock the commit clock
   * @param oldestLiveBaseline at most the baseline of every live and future transaction
   */
  public OrderedWrites(Runnable quiesce, LongSupplier clock, LongSupplier oldestLiveBaseline) {
    this.quiesce = quiesce;
    this.clock = clock;
    this.oldestLiveBaseline = oldestLiveBaseline;
  }

  /** Whether commits must publish their writes; read under the commit's locks. */
  public boolean active() {
    return active;
  }

  /** A transaction's first tracked scan: turn the record on if it is off. Call before the transaction takes its baseline. */
  public void enterScanning() {
    synchronized (registry) {
      if (scanners++ > 0) {
        return;
      }
      active = true;
      VarHandle.fullFence(); // a commit locking from here on reads it true
      quiesce.run();
      synchronized (this) {
        floor = Math.max(floor, clock.getAsLong());
        dropCommitted(Long.MAX_VALUE); // all at or below the new floor: nobody can ask about them
      }
    }
  }

  /** A scanning transaction ended (its validation, if any, is over). */
  public void leaveScanning() {
    synchronized (registry) {
      if (--scanners == 0) {
        active = false;
        synchronized (this) {
          dropCommitted(Long.MAX_VALUE); // nobody validates until the next activation raises the floor
        }
      }
    }
  }

  /**
   * Publish a commit's writes as pending, after waiting out every other commit's fence over them.
   * The caller holds the commit's locks and then calls exactly one of {@link #committed} and
   * {@link #abandon} for {@code c}. Returns false, publishing nothing, when {@code token} already
   * holds a fence and another commit's fence covers the writes: a fence holder must not wait.
   */
  public synchronized boolean publish(PendingCommit c, Object token) {
    boolean interrupted = false;
    while (fenced(c.writes(), token)) {
      if (holdsFence(token)) {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
        return false;
      }
      try {
        wait();
      } catch (InterruptedException e) {
        interrupted = true; // a commit half-way through its locks cannot give up: keep waiting, keep the interrupt
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    WriteBuffer w = c.writes();
    for (int i = 0; i < w.size(); i++) {
      Store s = w.store(i);
      if (s.isInternal()) {
        continue;
      }
      Entry e = keys.computeIfAbsent(s, x -> new TreeMap<>(Arrays::compareUnsigned)).computeIfAbsent(w.key(i), k -> {
        size++;
        return new Entry();
      });
      if (e.pending++ == 0) {
        e.owner = c;
      }
    }
    if (size > MAX_ENTRIES) {
      prune();
    }
    return true;
  }

  /** The published writes of {@code c} were written at {@code version}. */
  public synchronized void committed(PendingCommit c, long version) {
    WriteBuffer w = c.writes();
    for (int i = 0; i < w.size(); i++) {
      Entry e = entry(w.store(i), w.key(i));
      if (e != null) {
        e.version = Math.max(e.version, version);
        finish(e, c);
      }
    }
  }

  /** The published writes of {@code c} will not be written (a conflict or a failure). */
  public synchronized void abandon(PendingCommit c) {
    WriteBuffer w = c.writes();
    for (int i = 0; i < w.size(); i++) {
      Entry e = entry(w.store(i), w.key(i));
      if (e != null) {
        finish(e, c);
        if (e.pending == 0 && e.version == 0) {
          keys.get(w.store(i)).remove(w.key(i));
          size--;
        }
      }
    }
  }

  /**
   * Whether a key in one of {@code ranges} was written after {@code baseline}, is being written by
   * another commit, or may have been (the record cannot tell). If not, {@code token} fences the
   * intervals until {@link #releaseFences}.
   */
  public synchronized boolean conflicts(PendingCommit c, ScannedRanges ranges, long baseline, Object token) {
    boolean covered = false;
    for (ScannedRanges.Interval in : ranges.intervals()) {
      if (in.isEmpty()) {
        continue;
      }
      covered = true;
      TreeMap<byte[], Entry> m = keys.get(in.store);
      if (m == null) {
        continue;
      }
      byte[] lo = in.low();
      byte[] hi = in.high();
      Map<byte[], Entry> sub = lo == null ? (hi == null ? m : m.headMap(hi, false))
          : hi == null ? m.tailMap(lo, true) : m.subMap(lo, true, hi, false);
      for (Entry e : sub.values()) {
        if (e.version > baseline || e.pending > 1 || (e.pending == 1 && e.owner != c)) {
          return true;
        }
      }
    }
    if (!covered) {
      return false; // it showed no key and ran out of none: nothing to protect
    }
    if (floor > baseline) {
      conservativeAnswers.increment();
      return true;
    }
    fences.add(new Fence(token, ranges));
    return false;
  }

  /** The fence holder has its version (or failed): committers waiting on it may publish. */
  public synchronized void releaseFences(Object token) {
    if (fences.removeIf(f -> f.token == token)) {
      notifyAll();
    }
  }

  /** Keys held (tests and stats). */
  public synchronized int size() {
    return size;
  }

  private boolean holdsFence(Object token) {
    for (Fence f : fences) {
      if (f.token == token) {
        return true;
      }
    }
    return false;
  }

  private boolean fenced(WriteBuffer w, Object token) {
    for (Fence f : fences) {
      if (f.token == token) {
        continue;
      }
      for (int i = 0; i < w.size(); i++) {
        if (f.ranges.covers(w.store(i), w.key(i))) {
          return true;
        }
      }
    }
    return false;
  }

  private Entry entry(Store s, byte[] key) {
    TreeMap<byte[], Entry> m = keys.get(s);
    return m == null ? null : m.get(key);
  }

  private static void finish(Entry e, PendingCommit c) {
    if (e.pending > 0) {
      e.pending--;
      if (e.owner == c) {
        e.owner = null; // another pending writer, if any, stays anonymous: a conflict for everyone
      }
    }
  }

  /** Drop what no live transaction can ask about; beyond the bound, the oldest, raising the floor over them. */
  private void prune() {
    dropCommitted(oldestLiveBaseline.getAsLong());
    if (size <= MAX_ENTRIES / 2) {
      return;
    }
    long[] versions = new long[size];
    int n = 0;
    for (TreeMap<byte[], Entry> m : keys.values()) {
      for (Entry e : m.values()) {
        if (e.pending == 0) {
          versions[n++] = e.version;
        }
      }
    }
    int excess = size - MAX_ENTRIES / 2;
    if (n == 0 || excess <= 0) {
      return;
    }
    Arrays.sort(versions, 0, n);
    dropCommitted(versions[Math.min(n, excess) - 1]);
  }

  /** Remove committed entries at or below {@code upTo}; the floor rises over what is removed. */
  private void dropCommitted(long upTo) {
    for (Iterator<TreeMap<byte[], Entry>> stores = keys.values().iterator(); stores.hasNext(); ) {
      TreeMap<byte[], Entry> m = stores.next();
      for (Iterator<Entry> it = m.values().iterator(); it.hasNext(); ) {
        Entry e = it.next();
        if (e.pending == 0 && e.version <= upTo) {
          floor = Math.max(floor, e.version);
          it.remove();
          size--;
        }
      }
      if (m.isEmpty()) {
        stores.remove();
      }
    }
  }
}
