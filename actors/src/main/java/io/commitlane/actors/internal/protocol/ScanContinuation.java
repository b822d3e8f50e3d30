package io.commitlane.actors.internal.protocol;

import io.commitlane.actors.InvalidRequestException;
import io.commitlane.actors.ScanRange;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.KeyRange;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where the next page of a protocol scan starts, as a page hands it back: the range it belongs to
 * (a fingerprint of every field of the {@link ScanRange}), what is left of the range's limit, and
 * the last key returned. The database keeps nothing between pages; the continuation is checked
 * against the range it comes back with, so one from another range (other bounds, store,
 * direction, limit or values setting) is refused instead of restarting or jumping into that range.
 *
 * <p>Format: a format byte, the 8-byte fingerprint, the 4-byte limit left (0: the range has none),
 * then the last key.
 *
 * <p>INTERNAL API: the protocol's {@code Scan} on local, sharded and replicated databases; not for
 * use outside them.
 */
@InternalApi
public record ScanContinuation(int left, byte[] lastKey) {
  private static final byte FORMAT = 1;
  private static final int HEADER_BYTES = 1 + Long.BYTES + Integer.BYTES;

  /** The continuation after {@code lastKey} of {@code range}, with {@code left} of its limit to go (0: no limit). */
  public static byte[] encode(ScanRange range, int left, byte[] lastKey) {
    return ByteBuffer.allocate(HEADER_BYTES + lastKey.length).put(FORMAT).putLong(fingerprint(range)).putInt(left).put(lastKey)
        .array();
  }

  /** {@code continuation} as a place in {@code range}; {@link InvalidRequestException} if it is not one of its pages'. */
  public static ScanContinuation decode(ScanRange range, byte[] continuation) {
    if (continuation.length < HEADER_BYTES || continuation[0] != FORMAT) {
      throw new InvalidRequestException("a scan's continuation must be one a Page returned (this one has " + continuation.length
          + " bytes and is not); pass the continuation of this scan's last Page, or none to start at the beginning");
    }
    ByteBuffer b = ByteBuffer.wrap(continuation, 1, HEADER_BYTES - 1);
    if (b.getLong() != fingerprint(range)) {
      throw new InvalidRequestException("this scan's continuation belongs to another range than " + range + " (other"
          + " bounds, store, direction, limit or keys-only setting); send it with the range of the Page that returned it,"
          + " or start this range without one");
    }
    int left = b.getInt();
    if (left < 0 || (range.limit() == 0) != (left == 0) || left > range.limit()) {
      throw new InvalidRequestException("a scan's continuation was changed: it leaves " + left + " of the range's limit "
          + range.limit() + "; pass the continuation of this scan's last Page unchanged");
    }
    return new ScanContinuation(left, Arrays.copyOfRange(continuation, HEADER_BYTES, continuation.length));
  }

  /** What is left to read of {@code range} (the range this continuation belongs to): after the last key, within the limit. */
  public KeyRange resume(KeyRange range) {
    if (!range.contains(lastKey)) {
      throw new InvalidRequestException("a scan's continuation was changed: its last key is outside " + range
          + "; pass the continuation of this scan's last Page unchanged");
    }
    KeyRange rest = range.after(lastKey);
    return left > 0 ? rest.limit(left) : rest;
  }

  /** A 64-bit FNV-1a hash of every field of {@code range}, the same in every JVM (a scan may resume on another node). */
  static long fingerprint(ScanRange r) {
    long h = 0xcbf29ce484222325L;
    h = mix(h, r.store() == null ? null : r.store().getBytes(StandardCharsets.UTF_8));
    h = mix(h, r.lower());
    h = mix(h, r.upper());
    int flags = (r.lowerInclusive() ? 1 : 0) | (r.upperInclusive() ? 2 : 0) | (r.reversed() ? 4 : 0) | (r.withoutValues() ? 8 : 0);
    h = mix(h, ByteBuffer.allocate(8).putInt(flags).putInt(r.limit()).array());
    return h;
  }

  /** Mixes in {@code bytes} with its length first, so that (ab, c) and (a, bc) differ; null differs from empty. */
  private static long mix(long h, byte[] bytes) {
    int length = bytes == null ? -1 : bytes.length;
    for (int shift = 0; shift < 32; shift += 8) {
      h = (h ^ ((length >>> shift) & 0xFF)) * 0x100000001b3L;
    }
    if (bytes != null) {
      for (byte x : bytes) {
        h = (h ^ (x & 0xFF)) * 0x100000001b3L;
      }
    }
    return h;
  }
}
