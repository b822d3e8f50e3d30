package io.commitlane.replication;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** Keys as people read them in messages: quoted when printable ASCII, else 0x-hex; cut after 64 bytes. */
final class Keys {
  private static final int SHOWN = 64;

  private Keys() {}

  static String printable(byte[] key) {
    if (key == null) {
      return "(open)";
    }
    int shown = Math.min(key.length, SHOWN);
    boolean text = true;
    for (int i = 0; i < shown && text; i++) {
      text = key[i] >= 0x20 && key[i] < 0x7f;
    }
    String body = text ? '"' + new String(key, 0, shown, StandardCharsets.US_ASCII) + '"'
        : "0x" + HexFormat.of().formatHex(key, 0, shown);
    return shown < key.length ? body + "... (" + key.length + " bytes)" : body;
  }
}
