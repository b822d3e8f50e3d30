package io.commitlane.storage;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.commit.WriteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The stores one commit claimed: none of them is physically dropped until the claims are
 * released, so a commit admitted before a drop writes into a store that still exists. Taken by
 * {@link Transaction#claimStores()} (a commit pipeline, at admission) or by {@link
 * Transaction#commitSync()} at its start; released when the commit ends. The default store is
 * never claimed (it cannot be dropped), so commits that only write it pay nothing.
 *
 * <p>INTERNAL API: a seam for commitlane's own modules, not for applications.
 */
@InternalApi
public final class StoreClaims {
  static final StoreClaims NONE = new StoreClaims(new Store[0]);

  private final Store[] stores;
  private final AtomicBoolean released = new AtomicBoolean();

  private StoreClaims(Store[] stores) {
    this.stores = stores;
  }

  /**
   * Claim every droppable store {@code writes} names, or none: if one is dropped, the claims
   * already taken are given back and {@link StoreDroppedException} is thrown.
   */
  static StoreClaims claim(WriteBuffer writes) {
    Store[] claimed = null;
    int n = 0;
    Store last = null;
    for (int i = 0; i < writes.size(); i++) {
      Store s = writes.store(i);
      if (s == last || s.state() == null || contains(claimed, n, s)) {
        continue;
      }
      last = s;
      if (!s.state().tryClaim()) {
        for (int j = 0; j < n; j++) {
          claimed[j].release();
        }
        throw s.dropped();
      }
      if (claimed == null) {
        claimed = new Store[2];
      } else if (n == claimed.length) {
        claimed = java.util.Arrays.copyOf(claimed, n * 2);
      }
      claimed[n++] = s;
    }
    return n == 0 ? NONE : new StoreClaims(java.util.Arrays.copyOf(claimed, n));
  }

  /**
   * The second line of defence, right before the RocksDB write: refuse a write into a store whose
   * physical drop has started. Claims make this unreachable; it turns a missed claim into a typed
   * failure instead of a write through a closed column-family handle.
   */
  public static void requireWritable(WriteBuffer writes) {
    Store last = null;
    for (int i = 0; i < writes.size(); i++) {
      Store s = writes.store(i);
      if (s != last) {
        last = s;
        if (s.state() != null && !s.state().isWritable()) {
          throw s.dropped();
        }
      }
    }
  }

  /** Give the claims back (idempotent, any thread); the last claim of a dropped store lets its drop finish. */
  public void release() {
    if (stores.length > 0 && released.compareAndSet(false, true)) {
      for (Store s : stores) {
        s.release();
      }
    }
  }

  /** How many stores are claimed (the default store never is). */
  public int size() {
    return stores.length;
  }

  private static boolean contains(Store[] a, int n, Store s) {
    for (int i = 0; i < n; i++) {
      if (a[i] == s) {
        return true;
      }
    }
    return false;
  }
}
