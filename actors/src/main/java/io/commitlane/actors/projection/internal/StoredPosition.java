package io.commitlane.actors.projection.internal;

import io.commitlane.actors.projection.ProjectionPositionException;
import io.commitlane.annotation.InternalApi;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * INTERNAL API. A projection's stored position and its stored form, the value of the projection's
 * key in the offset store: a format byte (1), the position, the timestamp of the record at it,
 * and the name of the log it is a position of (a position of one log means nothing in another).
 *
 * @param position the position of the last record handled, or {@link #NONE}
 * @param timestamp that record's timestamp (milliseconds), or -1
 * @param log the log it is a position of
 */
@InternalApi
public record StoredPosition(long position, long timestamp, String log) {
  /** No position stored: the projection starts at the log's oldest retained record. */
  public static final long NONE = -1;

  private static final byte FORMAT = 1;
  private static final int FIXED = 1 + 8 + 8 + 2;

  public static StoredPosition none(String log) {
    return new StoredPosition(NONE, -1, log);
  }

  /** The stored form. */
  public byte[] encode() {
    byte[] name = log.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(FIXED + name.length).put(FORMAT).putLong(position).putLong(timestamp)
        .putShort((short) name.length).put(name).array();
  }

  /**
   * The position {@code value} holds ({@link #none} when null) for projection {@code projection}
   * of log {@code log}.
   *
   * @param where the store and database, for the message
   * @throws ProjectionPositionException if it is not in this format, or is a position of another log
   */
  public static StoredPosition decode(byte[] value, String projection, String log, String where) {
    if (value == null) {
      return none(log);
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    if (value.length < FIXED || b.get() != FORMAT) {
      throw new ProjectionPositionException(projection, "its stored position in " + where + " is not in a format this version"
          + " wrote (" + value.length + " bytes, format byte " + (value.length == 0 ? "none" : value[0]) + "); delete it to start"
          + " the projection over, or run the version that wrote it");
    }
    long position = b.getLong();
    long timestamp = b.getLong();
    int length = Short.toUnsignedInt(b.getShort());
    if (b.remaining() != length) {
      throw new ProjectionPositionException(projection, "its stored position in " + where + " is cut short or too long ("
          + value.length + " bytes); delete it to start the projection over");
    }
    byte[] name = new byte[length];
    b.get(name);
    String stored = new String(name, StandardCharsets.UTF_8);
    if (!stored.equals(log)) {
      throw new ProjectionPositionException(projection, "its stored position in " + where + " is a position of log '" + stored
          + "', and it now reads log '" + log + "': a position of one log means nothing in another. Give this projection"
          + " another name, or delete its stored position to start it over from the oldest record of '" + log + "'");
    }
    return new StoredPosition(position, timestamp, stored);
  }
}
