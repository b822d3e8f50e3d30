package io.commitlane.storage;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * What a scan reads: the keys of one store between a lower and an upper bound (each inclusive or
 * exclusive, either one open) or under a prefix, in forward or reverse key order, up to a limit,
 * with or without values. Keys compare as unsigned bytes, as RocksDB's default comparator does.
 * Immutable: every method returns a new range.
 *
 * <pre>{@code
 * KeyRange.prefix(bytes("user/")).in(users).limit(100)        // the first 100 keys under user/
 * KeyRange.all().from(a).toInclusive(b).reverse().keysOnly()  // [a, b], from b down to a
 * cursor.rest()                                               // exactly what the cursor left of the range
 * range.after(lastKey)                                        // the next page, the limit as its size
 * }</pre>
 *
 * <p>Bounds are checked as they are set: a lower bound above the upper bound, or a limit of zero
 * or less, throws {@link InvalidRangeException}. Equal bounds where one is exclusive make an empty
 * range, which is allowed. The store is checked when the range is read: a dropped store throws
 * {@link StoreDroppedException} then, as point reads do.
 */
public final class KeyRange {
  private static final KeyRange ALL = new KeyRange(null, null, true, null, false, false, 0, false);

  /** Null: the default store of the database the range is read from. */
  private final Store store;
  private final byte[] lower;
  private final boolean lowerInclusive;
  private final byte[] upper;
  private final boolean upperInclusive;
  private final boolean reverse;
  /** 0: no limit. */
  private final int limit;
  private final boolean keysOnly;

  private KeyRange(Store store, byte[] lower, boolean lowerInclusive, byte[] upper, boolean upperInclusive,
      boolean reverse, int limit, boolean keysOnly) {
    this.store = store;
    this.lower = lower;
    this.lowerInclusive = lowerInclusive;
    this.upper = upper;
    this.upperInclusive = upperInclusive;
    this.reverse = reverse;
    this.limit = limit;
    this.keysOnly = keysOnly;
    if (lower != null && upper != null && compare(lower, upper) > 0) {
      throw new InvalidRangeException("the lower bound " + hex(lower) + " is above the upper bound " + hex(upper)
          + "; swap them, and use reverse() to read from the upper bound down");
    }
  }

  /** Every key of the default store (or of the store given with {@link #in}). */
  public static KeyRange all() {
    return ALL;
  }

  /** The keys that start with {@code prefix}: {@code [prefix, the next prefix)}; an empty prefix is every key. */
  public static KeyRange prefix(byte[] prefix) {
    byte[] p = Objects.requireNonNull(prefix, "prefix").clone();
    return new KeyRange(null, p.length == 0 ? null : p, true, successor(p), false, false, 0, false);
  }

  /** The keys in {@code [lowerInclusive, upperExclusive)}. */
  public static KeyRange between(byte[] lowerInclusive, byte[] upperExclusive) {
    return all().from(lowerInclusive).to(upperExclusive);
  }

  /** The same bounds in another store (a named store, or {@link Database#defaultStore()}). */
  public KeyRange in(Store store) {
    return new KeyRange(Objects.requireNonNull(store, "store"), lower, lowerInclusive, upper, upperInclusive, reverse,
        limit, keysOnly);
  }

  /** Keys at or above {@code key}. */
  public KeyRange from(byte[] key) {
    return lower(key, true);
  }

  /** Keys above {@code key}. */
  public KeyRange fromExclusive(byte[] key) {
    return lower(key, false);
  }

  /** Keys below {@code key}. */
  public KeyRange to(byte[] key) {
    return upper(key, false);
  }

  /** Keys at or below {@code key}. */
  public KeyRange toInclusive(byte[] key) {
    return upper(key, true);
  }

  /** Read from the upper bound down. */
  public KeyRange reverse() {
    return new KeyRange(store, lower, lowerInclusive, upper, upperInclusive, true, limit, keysOnly);
  }

  /** Read from the lower bound up (the default). */
  public KeyRange forward() {
    return new KeyRange(store, lower, lowerInclusive, upper, upperInclusive, false, limit, keysOnly);
  }

  /** Return at most {@code n} entries (n > 0). A tracked scan that stops at its limit covers only what it returned. */
  public KeyRange limit(int n) {
    if (n <= 0) {
      throw new InvalidRangeException("a scan's limit must be at least 1, not " + n + "; leave it out to read the whole range");
    }
    return new KeyRange(store, lower, lowerInclusive, upper, upperInclusive, reverse, n, keysOnly);
  }

  /** Return keys without values (cheaper: values are not copied out of RocksDB). */
  public KeyRange keysOnly() {
    return new KeyRange(store, lower, lowerInclusive, upper, upperInclusive, reverse, limit, true);
  }

  /**
   * The part of this range that comes after {@code lastKey} in its direction: above it for a
   * forward range, below it for a reverse one; same store, <b>same limit</b> and values setting.
   * With the limit as a page size this is the next page: pass the last key a page returned ({@link
   * Cursor#lastKey()}). It does not know how many entries came before, so for the rest of a
   * limited range (what its limit has left) use {@link Cursor#rest()}, or {@code
   * after(lastKey).limit(left)}. A key beyond the range's end gives an empty range.
   */
  public KeyRange after(byte[] lastKey) {
    byte[] k = Objects.requireNonNull(lastKey, "lastKey").clone();
    if (!reverse) {
      if (lower != null && compare(k, lower) < 0) {
        return this;
      }
      if (upper != null && compare(k, upper) > 0) {
        k = upper.clone(); // past the end: (upper, upper] is empty and keeps the bounds in order
      }
      return new KeyRange(store, k, false, upper, upperInclusive, false, limit, keysOnly);
    }
    if (upper != null && compare(k, upper) > 0) {
      return this;
    }
    if (lower != null && compare(k, lower) < 0) {
      k = lower.clone();
    }
    return new KeyRange(store, lower, lowerInclusive, k, false, true, limit, keysOnly);
  }

  /**
   * The rest of this range once a cursor returned up to {@code lastKey}, with {@code left} of the
   * limit to go ({@link Integer#MAX_VALUE} without a limit): empty when the limit is used up.
   */
  KeyRange rest(byte[] lastKey, int left) {
    KeyRange after = after(lastKey);
    if (limit == 0) {
      return after;
    }
    if (left > 0) {
      return after.limit(left);
    }
    byte[] k = lastKey.clone(); // (k, k): empty, and the bounds stay in order
    return new KeyRange(store, k, false, k, false, reverse, 0, keysOnly);
  }

  /** The store, or null for the default store of whichever database reads the range. */
  public Store store() {
    return store;
  }

  /** A copy of the lower bound, or null when open. */
  public byte[] lowerBound() {
    return lower == null ? null : lower.clone();
  }

  public boolean isLowerInclusive() {
    return lowerInclusive;
  }

  /** A copy of the upper bound, or null when open. */
  public byte[] upperBound() {
    return upper == null ? null : upper.clone();
  }

  public boolean isUpperInclusive() {
    return upperInclusive;
  }

  public boolean isReverse() {
    return reverse;
  }

  /** The limit, or 0 for none. */
  public int limit() {
    return limit;
  }

  public boolean isKeysOnly() {
    return keysOnly;
  }

  /** Whether {@code key} lies between the bounds (limit and direction aside). */
  public boolean contains(byte[] key) {
    byte[] s = start();
    byte[] e = end();
    return (s == null || compare(key, s) >= 0) && (e == null || compare(key, e) < 0);
  }

  /** Whether no key can lie between the bounds. */
  public boolean isEmpty() {
    byte[] s = start();
    byte[] e = end();
    return s != null && e != null && compare(s, e) >= 0;
  }

  // Every bound is kept as the half-open [start, end) RocksDB's iterator bounds take: an exclusive
  // lower bound k starts at k + 0x00 and an inclusive upper bound k ends there, the next key in
  // unsigned byte order. Validation and the merge with a transaction's own writes use the same form.

  /** The inclusive start, or null when open. */
  byte[] start() {
    return lower == null ? null : lowerInclusive ? lower : append0(lower);
  }

  /** The exclusive end, or null when open. */
  byte[] end() {
    return upper == null ? null : upperInclusive ? append0(upper) : upper;
  }

  /** This range's store, or the default store of {@code db}. */
  Store storeIn(Database db) {
    return store == null ? db.defaultStore() : store;
  }

  private KeyRange lower(byte[] key, boolean inclusive) {
    return new KeyRange(store, Objects.requireNonNull(key, "key").clone(), inclusive, upper, upperInclusive, reverse, limit,
        keysOnly);
  }

  private KeyRange upper(byte[] key, boolean inclusive) {
    return new KeyRange(store, lower, lowerInclusive, Objects.requireNonNull(key, "key").clone(), inclusive, reverse, limit,
        keysOnly);
  }

  static int compare(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }

  /** The smallest key above {@code key}. */
  static byte[] append0(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  /** The smallest key above every key that starts with {@code prefix}, or null if there is none (all 0xFF). */
  static byte[] successor(byte[] prefix) {
    for (int i = prefix.length - 1; i >= 0; i--) {
      if (prefix[i] != (byte) 0xFF) {
        byte[] s = Arrays.copyOf(prefix, i + 1);
        s[i]++;
        return s;
      }
    }
    return null;
  }

  private static String hex(byte[] key) {
    return "0x" + HexFormat.of().formatHex(key);
  }

  @Override
  public String toString() {
    return "KeyRange[" + (store == null ? "default store" : store.name()) + " "
        + (lower == null ? "(open" : (lowerInclusive ? "[" : "(") + hex(lower)) + ", "
        + (upper == null ? "open)" : hex(upper) + (upperInclusive ? "]" : ")"))
        + (reverse ? " reverse" : "") + (limit > 0 ? " limit " + limit : "") + (keysOnly ? " keys only" : "") + "]";
  }
}
