package io.commitlane.persistence.internal.store;

import io.commitlane.annotation.InternalApi;
import io.commitlane.persistence.InvalidNameException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * INTERNAL API. The key layout of the plugins' store: every natural read is one range read.
 *
 * <pre>
 * E name seq            an event of a persistence id, by sequence number (big-endian: numeric order is key order)
 * H name                the id's highest sequence number and how far its events were deleted; never removed,
 *                       so the highest survives deleting every event
 * S name seq            a snapshot, by sequence number
 * T name position       the event tag index: a tag's events in commit-position order
 * N position            the persistence ids in the order their first event committed
 * D name                a durable state object (its revision, position, tag and value)
 * C name position       the durable-state change index: a tag's newest change per object, in position order
 * R                     the positions reserved so far (never handed out twice, across restarts)
 * </pre>
 *
 * A {@code name} (a persistence id or a tag) is its UTF-8 length as 4 bytes and its UTF-8 bytes, so one name's
 * keys form one contiguous range whatever bytes it holds. A name that is not well-formed Unicode (an unpaired
 * surrogate) has no lossless UTF-8 form and is refused ({@link InvalidNameException}): two different ids must never
 * share keys.
 */
@InternalApi
public final class Keys {
  public static final byte EVENT = 'E';
  static final byte HIGHEST = 'H';
  public static final byte SNAPSHOT = 'S';
  static final byte TAG = 'T';
  static final byte NEW_ID = 'N';
  static final byte STATE = 'D';
  static final byte CHANGE = 'C';
  static final byte RESERVED = 'R';
  /** The longest name, in UTF-8 bytes. */
  public static final int MAX_NAME_BYTES = 32_768;

  private Keys() {}

  /** The UTF-8 bytes of {@code name}; throws {@link InvalidNameException} for a name with no lossless UTF-8 form. */
  public static byte[] utf8(String what, String name) {
    if (name == null || name.isEmpty()) {
      throw new InvalidNameException("the " + what + " is " + (name == null ? "null" : "empty") + ": give a non-empty " + what);
    }
    byte[] bytes;
    if (!hasSurrogate(name)) {
      bytes = name.getBytes(StandardCharsets.UTF_8); // lossless: only an unpaired surrogate has no UTF-8 form
    } else {
      bytes = strictUtf8(what, name);
    }
    if (bytes.length > MAX_NAME_BYTES) {
      throw new InvalidNameException("the " + what + " is " + bytes.length + " UTF-8 bytes long; at most " + MAX_NAME_BYTES
          + " are allowed: use a shorter " + what);
    }
    return bytes;
  }

  private static boolean hasSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  /** The UTF-8 bytes of a name holding surrogates: refused unless every one is paired. */
  private static byte[] strictUtf8(String what, String name) {
    CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      ByteBuffer b = encoder.encode(CharBuffer.wrap(name));
      return Arrays.copyOfRange(b.array(), b.position(), b.limit());
    } catch (CharacterCodingException e) {
      throw new InvalidNameException("the " + what + " \"" + printable(name) + "\" is not well-formed Unicode (it holds an"
          + " unpaired surrogate), so it has no lossless UTF-8 form and could share keys with another " + what
          + ": use a well-formed string");
    }
  }

  public static String string(byte[] bytes, int from, int length) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      return decoder.decode(ByteBuffer.wrap(bytes, from, length)).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalStateException("a stored name is not UTF-8: the store is damaged", e);
    }
  }

  private static String printable(String s) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length() && out.length() < 80; i++) {
      char c = s.charAt(i);
      out.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return out.toString();
  }

  // ---- keys ---------------------------------------------------------------------------------

  private static ByteBuffer start(byte kind, byte[] name, int extra) {
    ByteBuffer b = ByteBuffer.allocate(1 + 4 + name.length + extra);
    return b.put(kind).putInt(name.length).put(name);
  }

  /** The prefix of every key of {@code kind} under {@code name}. */
  public static byte[] prefix(byte kind, byte[] name) {
    return start(kind, name, 0).array();
  }

  static byte[] named(byte kind, byte[] name, long number) {
    return start(kind, name, 8).putLong(number).array();
  }

  public static byte[] event(byte[] pid, long seq) {
    return named(EVENT, pid, seq);
  }

  /** The {@code H} key of a persistence id (its UTF-8 bytes): every write and delete of the id changes its value. */
  public static byte[] highest(byte[] pid) {
    return prefix(HIGHEST, pid);
  }

  public static byte[] snapshot(byte[] pid, long seq) {
    return named(SNAPSHOT, pid, seq);
  }

  public static byte[] tag(byte[] tag, long position) {
    return named(TAG, tag, position);
  }

  public static byte[] change(byte[] tag, long position) {
    return named(CHANGE, tag, position);
  }

  public static byte[] state(byte[] pid) {
    return prefix(STATE, pid);
  }

  public static byte[] newId(long position) {
    return ByteBuffer.allocate(9).put(NEW_ID).putLong(position).array();
  }

  static byte[] kind(byte kind) {
    return new byte[] {kind};
  }

  static byte[] reserved() {
    return new byte[] {RESERVED};
  }

  /** The number at the end of a {@link #named} key. */
  public static long number(byte[] key) {
    return ByteBuffer.wrap(key, key.length - 8, 8).getLong();
  }

  /** The name of a key of the form kind, length, name[, ...]. */
  public static String name(byte[] key) {
    int length = ByteBuffer.wrap(key, 1, 4).getInt();
    return string(key, 5, length);
  }

  /** The first key after every key starting with {@code prefix} (null: none, the prefix is all 0xff). */
  public static byte[] after(byte[] prefix) {
    byte[] end = prefix.clone();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xff) {
        end[i]++;
        return Arrays.copyOf(end, i + 1);
      }
    }
    return null;
  }
}
