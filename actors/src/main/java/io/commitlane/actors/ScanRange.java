package io.commitlane.actors;

import io.commitlane.actors.internal.protocol.RequestNames;
import io.commitlane.storage.Database;
import io.commitlane.storage.InvalidRangeException;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.Store;
import io.commitlane.storage.internal.PrintableBytes;
import java.util.Arrays;

/**
 * The range a {@link DatabaseProtocol.Scan} or {@link DatabaseProtocol.Count} reads: the keys of
 * one store between a lower and an upper bound (each inclusive or exclusive, either one open), in
 * forward or reverse key order, up to a limit, with or without values. A self-contained,
 * serializable copy of the storage module's {@link KeyRange} (which holds a live store), built the
 * same way:
 *
 * <pre>{@code
 * ScanRange.prefix("orders", bytes("order/c42/")).reverse().limit(20)   // a customer's 20 newest orders
 * ScanRange.all(null).from(a).toInclusive(b).keysOnly()                // [a, b] of the default store
 * }</pre>
 *
 * @param store the store, or null for the default store
 * @param lower the lower bound, or null for none
 * @param upper the upper bound, or null for none
 * @param reversed read from the upper bound down
 * @param limit the most entries the whole scan returns over all its pages; 0 for no limit
 * @param withoutValues keys only
 */
public record ScanRange(String store, byte[] lower, boolean lowerInclusive, byte[] upper, boolean upperInclusive,
    boolean reversed, int limit, boolean withoutValues) {
  public ScanRange {
    RequestNames.store(store);
    lower = lower == null ? null : lower.clone();
    upper = upper == null ? null : upper.clone();
    if (limit < 0) {
      throw new InvalidRequestException("a scan's limit must be at least 1 (or 0 for none), not " + limit);
    }
    if (lower != null && upper != null && Arrays.compareUnsigned(lower, upper) > 0) {
      throw new InvalidRequestException("a scan's lower bound is above its upper bound; swap them, and use reverse()"
          + " to read from the upper bound down");
    }
  }

  /** Every key of {@code store} (null: the default store). */
  public static ScanRange all(String store) {
    return new ScanRange(store, null, true, null, false, false, 0, false);
  }

  /** The keys of {@code store} that start with {@code prefix}. */
  public static ScanRange prefix(String store, byte[] prefix) {
    KeyRange p = KeyRange.prefix(bound(prefix, "ScanRange.prefix needs a prefix (an empty one for every key)"));
    return new ScanRange(store, p.lowerBound(), true, p.upperBound(), false, false, 0, false);
  }

  public ScanRange from(byte[] key) {
    return new ScanRange(store, bound(key, "ScanRange.from"), true, upper, upperInclusive, reversed, limit, withoutValues);
  }

  public ScanRange fromExclusive(byte[] key) {
    return new ScanRange(store, bound(key, "ScanRange.fromExclusive"), false, upper, upperInclusive, reversed, limit, withoutValues);
  }

  public ScanRange to(byte[] key) {
    return new ScanRange(store, lower, lowerInclusive, bound(key, "ScanRange.to"), false, reversed, limit, withoutValues);
  }

  public ScanRange toInclusive(byte[] key) {
    return new ScanRange(store, lower, lowerInclusive, bound(key, "ScanRange.toInclusive"), true, reversed, limit, withoutValues);
  }

  /** Read from the upper bound down. */
  public ScanRange reverse() {
    return new ScanRange(store, lower, lowerInclusive, upper, upperInclusive, true, limit, withoutValues);
  }

  /** At most {@code n} entries (n > 0) over all pages. */
  public ScanRange limit(int n) {
    if (n <= 0) {
      throw new InvalidRequestException("a scan's limit must be at least 1, not " + n + "; leave it out to read the whole range");
    }
    return new ScanRange(store, lower, lowerInclusive, upper, upperInclusive, reversed, n, withoutValues);
  }

  /** Keys without values. */
  public ScanRange keysOnly() {
    return new ScanRange(store, lower, lowerInclusive, upper, upperInclusive, reversed, limit, true);
  }

  /** {@code key}, refused when null: a missing bound is left out, never passed as null by mistake. */
  private static byte[] bound(byte[] key, String what) {
    if (key == null) {
      throw new InvalidRequestException(what.contains(" ") ? what : what + " needs a key; leave the call out for an open bound");
    }
    return key;
  }

  /** This range in {@code store} of {@code db}, as the storage module reads it. */
  @io.commitlane.annotation.InternalApi
  public KeyRange toKeyRange(Store store) {
    try {
      KeyRange r = KeyRange.all().in(store);
      if (lower != null) {
        r = lowerInclusive ? r.from(lower) : r.fromExclusive(lower);
      }
      if (upper != null) {
        r = upperInclusive ? r.toInclusive(upper) : r.to(upper);
      }
      r = reversed ? r.reverse() : r;
      r = limit > 0 ? r.limit(limit) : r;
      return withoutValues ? r.keysOnly() : r;
    } catch (InvalidRangeException e) {
      throw new InvalidRequestException(e.getMessage());
    }
  }

  /** The store this range names in {@code db}, or null when it does not exist (then the range is empty). */
  @io.commitlane.annotation.InternalApi
  public Store existingStore(Database db) {
    return store == null ? db.defaultStore() : db.findStore(store).orElse(null);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ScanRange r && java.util.Objects.equals(store, r.store) && Arrays.equals(lower, r.lower)
        && lowerInclusive == r.lowerInclusive && Arrays.equals(upper, r.upper) && upperInclusive == r.upperInclusive
        && reversed == r.reversed && limit == r.limit && withoutValues == r.withoutValues;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(store, Arrays.hashCode(lower), lowerInclusive, Arrays.hashCode(upper), upperInclusive, reversed,
        limit, withoutValues);
  }

  @Override
  public String toString() {
    return "ScanRange[" + (store == null ? "default store" : store) + " "
        + (lower == null ? "(open" : (lowerInclusive ? "[" : "(") + PrintableBytes.of(lower)) + ", "
        + (upper == null ? "open)" : PrintableBytes.of(upper) + (upperInclusive ? "]" : ")"))
        + (reversed ? " reverse" : "") + (limit > 0 ? " limit " + limit : "") + (withoutValues ? " keys only" : "") + "]";
  }
}
