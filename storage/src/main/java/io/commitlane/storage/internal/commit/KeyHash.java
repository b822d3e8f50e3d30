package io.commitlane.storage.internal.commit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A 64-bit hash of (store, key). Its low 32 bits choose the lock bucket ({@link
 * VersionTable#bucketOf}); all 64 bits are the key's fingerprint in {@link RecentWrites}, so two
 * keys with one fingerprint always share a bucket. Reads eight bytes at a time and finishes with a
 * 64-bit avalanche, so similar keys (counters, sequential ids) spread evenly.
 */
public final class KeyHash {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long M = 0x9E37_79B9_7F4A_7C15L;

  private KeyHash() {}

  public static long of(int storeId, byte[] key) {
    long h = (storeId + 1L) * M ^ key.length;
    int i = 0;
    for (; i + 8 <= key.length; i += 8) {
      h = (h ^ (long) LONGS.get(key, i)) * M;
      h ^= h >>> 29;
    }
    long tail = 0;
    for (int shift = 0; i < key.length; i++, shift += 8) {
      tail |= (key[i] & 0xFFL) << shift;
    }
    h = (h ^ tail) * M;
    // fmix64 from MurmurHash3.
    h ^= h >>> 33;
    h *= 0xFF51_AFD7_ED55_8CCDL;
    h ^= h >>> 33;
    h *= 0xC4CE_B9FE_1A85_EC53L;
    h ^= h >>> 33;
    return h;
  }
}
