package io.commitlane.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Small encoders for tests. */
public final class Bytes {
  private Bytes() {}

  public static byte[] of(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  public static byte[] ofLong(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  static long toLong(byte[] b) {
    return b == null ? 0 : ByteBuffer.wrap(b).getLong();
  }

  public static String str(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
