package io.commitlane.replication;

import io.commitlane.annotation.InternalApi;

/**
 * A call on a replicated database or transaction was given an argument it cannot use: a missing
 * (null) key, value, store, range or timeout, a log name or a store name that cannot be sent, a
 * negative timeout. Thrown by the call itself, before anything is sent; nothing was written.
 * Fix the argument; retrying the same call fails the same way.
 */
public final class InvalidReplicaRequestException extends IllegalArgumentException {
  @InternalApi public InvalidReplicaRequestException(String message) {
    super(message);
  }

  /** {@code value}, or this error naming {@code what} when it is null. */
  @InternalApi public static <T> T required(T value, String what) {
    if (value == null) {
      throw new InvalidReplicaRequestException(what + " is null; pass a " + what);
    }
    return value;
  }
}
