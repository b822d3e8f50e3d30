package io.commitlane.storage;

import java.nio.charset.StandardCharsets;

/** Small encoders for the storage tests that live here (they use the testkit, which storage's own tests cannot). */
final class Bytes {
  private Bytes() {}

  static byte[] of(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String str(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
