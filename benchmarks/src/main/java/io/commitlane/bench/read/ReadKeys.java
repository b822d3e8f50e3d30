package io.commitlane.bench.read;

/** The reads bench's keys: 8-byte big-endian indexes, so byte order is index order. */
public final class ReadKeys {
  private ReadKeys() {}

  public static byte[] key(long index) {
    byte[] k = new byte[8];
    for (int i = 0; i < 8; i++) {
      k[i] = (byte) (index >>> (56 - 8 * i));
    }
    return k;
  }
}
