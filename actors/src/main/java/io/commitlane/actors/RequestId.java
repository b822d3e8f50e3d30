package io.commitlane.actors;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * A client-chosen id that makes a write request idempotent: a database that applied a request
 * with this id answers every later request with the same id with the first one's outcome, and
 * applies nothing again, for at least {@code commitlane.request-ids.window} after the write.
 * Give each logical write its own id (a UUID, or your own unique key) and send every retry of it
 * with the same id. See {@link DatabaseProtocol.Write}.
 *
 * @param value 1..200 bytes of UTF-8
 */
public record RequestId(String value) {
  /** The most UTF-8 bytes an id may have. */
  public static final int MAX_BYTES = 200;

  public RequestId {
    if (value == null || value.isEmpty()) {
      throw new InvalidRequestException("a request id needs a value (1.." + MAX_BYTES + " bytes of UTF-8)");
    }
    if (value.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      throw new InvalidRequestException("request id \"" + value.substring(0, Math.min(value.length(), 40)) + "...\" is longer than "
          + MAX_BYTES + " bytes of UTF-8");
    }
  }

  public static RequestId of(String value) {
    return new RequestId(value);
  }

  /** A new random id (a type-4 UUID). */
  public static RequestId random() {
    return new RequestId(UUID.randomUUID().toString());
  }

  @io.commitlane.annotation.InternalApi
  public byte[] bytes() {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return value;
  }
}
