package io.commitlane.storage.internal;

import io.commitlane.annotation.InternalApi;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * Keys and values as people read them in messages and {@code toString}: quoted text when the
 * bytes shown are valid UTF-8 without control characters, else 0x-hex; cut after 64 bytes (at a
 * character boundary) with the full length given. Lists show their first 16 elements.
 *
 * <p>INTERNAL API: shared by commitlane's modules; not for use outside them.
 */
@InternalApi
public final class PrintableBytes {
  private static final int SHOWN_BYTES = 64;
  private static final int SHOWN_ELEMENTS = 16;

  private PrintableBytes() {}

  /** {@code "text"}, {@code 0x0a1b...}, with {@code ... (N bytes)} when cut; {@code null} for null. */
  public static String of(byte[] bytes) {
    if (bytes == null) {
      return "null";
    }
    int shown = Math.min(bytes.length, SHOWN_BYTES);
    String text = text(bytes, shown);
    String body;
    if (text != null) {
      body = '"' + text + '"';
    } else {
      body = "0x" + HexFormat.of().formatHex(bytes, 0, shown);
    }
    return shown < bytes.length ? body + "... (" + bytes.length + " bytes)" : body;
  }

  /** {@code [a, b, ...]} with each element as {@link #of(byte[])}. */
  public static String of(List<byte[]> list) {
    if (list == null) {
      return "null";
    }
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < list.size() && i < SHOWN_ELEMENTS; i++) {
      s.append(i == 0 ? "" : ", ").append(of(list.get(i)));
    }
    if (list.size() > SHOWN_ELEMENTS) {
      s.append(", ... (").append(list.size()).append(" in all)");
    }
    return s.append(']').toString();
  }

  /** The first {@code length} bytes (less a character cut at the end) as text, or null when not printable UTF-8. */
  private static String text(byte[] bytes, int length) {
    int end = length;
    if (length < bytes.length) {
      while (end > 0 && (bytes[end] & 0xC0) == 0x80) { // bytes[end] continues a character: leave it out whole
        end--;
      }
    }
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    CharBuffer chars;
    try {
      chars = decoder.decode(ByteBuffer.wrap(bytes, 0, end));
    } catch (CharacterCodingException e) {
      return null;
    }
    for (int i = 0; i < chars.length(); i++) {
      if (Character.isISOControl(chars.charAt(i))) {
        return null;
      }
    }
    return chars.toString();
  }
}
