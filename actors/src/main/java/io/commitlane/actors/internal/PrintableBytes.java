package io.commitlane.actors.internal;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.pekko.annotation.InternalApi;

/**
 * Keys and values for messages and {@code toString}: quoted text when every byte shown is
 * printable ASCII, else 0x-hex, cut after 64 bytes with the full length given.
 *
 * <p>INTERNAL API.
 */
@InternalApi
public final class PrintableBytes {
  private static final int SHOWN = 64;

  private PrintableBytes() {}

  public static String of(byte[] bytes) {
    if (bytes == null) {
      return "null";
    }
    int shown = Math.min(bytes.length, SHOWN);
    boolean text = true;
    for (int i = 0; i < shown && text; i++) {
      text = bytes[i] >= 0x20 && bytes[i] < 0x7f;
    }
    String body = text ? '"' + new String(bytes, 0, shown, StandardCharsets.US_ASCII) + '"'
        : "0x" + HexFormat.of().formatHex(bytes, 0, shown);
    return shown < bytes.length ? body + "... (" + bytes.length + " bytes)" : body;
  }
}
