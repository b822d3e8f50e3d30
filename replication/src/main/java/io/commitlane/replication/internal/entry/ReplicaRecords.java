package io.commitlane.replication.internal.entry;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The keys of a replica's own records in the database's internal store. They are written in the
 * same RocksDB write as the data of the entry that changed them, so what they say always agrees
 * with the data beside them:
 *
 * <ul>
 *   <li>{@code applied}: the term and index of the last replicated commit this replica applied;
 *   <li>{@code version(store, key)}: the index of the last commit that wrote the key, put or
 *       delete, which validation compares with a transaction's snapshot index;
 *   <li>{@code request(id)}: the index (and, for an entry of several commits, the slot) of the
 *       commit a request id committed, so a resend is answered from it instead of being applied
 *       twice;
 *   <li>{@code change(index, log)}: the record a commit at {@code index} appended to a transaction
 *       log, keyed by index first so that every replica holds it at the same position and the
 *       oldest are trimmed with one range delete;
 *   <li>{@code LOG_CLOCK}: the timestamp of the newest log record, which the next one must pass;
 *   <li>{@code TRIMMED}: the index through which log records were trimmed, so a feed that asks
 *       for older ones learns that they are gone instead of skipping them unseen.
 * </ul>
 *
 * The leading zero byte keeps them apart from other records of the internal store, which
 * start with a printable log name or with {@code {0, 'i'}}.
 */
public final class ReplicaRecords {
  public static final byte[] APPLIED = {0, 'r', 'a'};
  public static final byte[] LOG_CLOCK = {0, 'r', 's'};
  public static final byte[] TRIMMED = {0, 'r', 't'};
  /** Every change key starts with this; {@link #CHANGES_END} is just past the last. */
  public static final byte[] CHANGES = {0, 'r', 'c'};
  public static final byte[] CHANGES_END = {0, 'r', 'c' + 1};
  private static final byte VERSION = 'v';
  private static final byte REQUEST = 'q';

  private ReplicaRecords() {}

  public static byte[] applied(long term, long index) {
    return ByteBuffer.allocate(16).putLong(term).putLong(index).array();
  }

  /** {term, index} of an {@link #APPLIED} record. */
  public static long[] readApplied(byte[] value) {
    ByteBuffer b = ByteBuffer.wrap(value);
    return new long[] {b.getLong(), b.getLong()};
  }

  public static byte[] version(String store, byte[] key) {
    byte[] prefix = versionPrefix(store);
    byte[] k = Arrays.copyOf(prefix, prefix.length + key.length);
    System.arraycopy(key, 0, k, prefix.length, key.length);
    return k;
  }

  /** The first version key of {@code store} at or after {@code from} (null: the store's first). */
  public static byte[] versionFrom(String store, byte[] from) {
    return from == null ? versionPrefix(store) : version(store, from);
  }

  /** The version key just past {@code to} in {@code store} (null: past the store's last). */
  public static byte[] versionTo(String store, byte[] to) {
    if (to != null) {
      return version(store, to);
    }
    byte[] prefix = versionPrefix(store);
    // The store name is length-prefixed, so incrementing its last byte passes every key of it.
    for (int i = prefix.length - 1; i >= 0; i--) {
      if (prefix[i] != (byte) 0xFF) {
        byte[] end = Arrays.copyOf(prefix, i + 1);
        end[i]++;
        return end;
      }
    }
    throw new IllegalStateException("a version prefix of all 0xFF bytes");
  }

  private static byte[] versionPrefix(String store) {
    byte[] name = store.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(3 + 2 + name.length).put((byte) 0).put((byte) 'r').put(VERSION)
        .putShort((short) name.length).put(name).array();
  }

  public static byte[] request(byte[] id) {
    byte[] k = new byte[3 + id.length];
    k[1] = 'r';
    k[2] = REQUEST;
    System.arraycopy(id, 0, k, 3, id.length);
    return k;
  }

  public static byte[] change(long index, String log) {
    byte[] name = log.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(CHANGES.length + 8 + name.length).put(CHANGES).putLong(index).put(name).array();
  }

  /** The first change key of a commit at {@code index} or after it. */
  public static byte[] changesFrom(long index) {
    return ByteBuffer.allocate(CHANGES.length + 8).put(CHANGES).putLong(index).array();
  }

  public static long changeIndex(byte[] key) {
    return ByteBuffer.wrap(key, CHANGES.length, 8).getLong();
  }

  public static String changeLog(byte[] key) {
    int from = CHANGES.length + 8;
    return new String(key, from, key.length - from, StandardCharsets.UTF_8);
  }

  /** A request record: the index of the entry that committed it, then its slot in that entry. */
  public static byte[] requestValue(long index, int slot) {
    return slot == 0 ? longValue(index) : ByteBuffer.allocate(12).putLong(index).putInt(slot).array();
  }

  /** The slot of a {@link #requestValue} (0 when it names none: a commit alone in its entry). */
  public static int readSlot(byte[] requestValue) {
    return requestValue.length >= 12 ? ByteBuffer.wrap(requestValue, 8, 4).getInt() : 0;
  }

  public static byte[] longValue(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  public static long readLong(byte[] value) {
    return ByteBuffer.wrap(value).getLong();
  }
}
