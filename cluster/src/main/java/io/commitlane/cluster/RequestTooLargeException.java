package io.commitlane.cluster;

import io.commitlane.storage.CommitlaneException;

/**
 * A request is larger than one frame of Pekko's remote transport can carry, so it could not reach a
 * database owned by another node: the transport would drop it and the caller would wait for a reply
 * that never comes. Thrown where the request is built, before anything is sent; nothing was written.
 */
public final class RequestTooLargeException extends CommitlaneException {
  public RequestTooLargeException(String database, long bytes, long frameBytes, int marginBytes) {
    super("a request of " + bytes + " bytes (serialized) for database " + database + " does not fit one remote frame: "
        + "pekko.remote.artery.advanced.maximum-frame-size is " + frameBytes + " bytes, of which " + marginBytes
        + " are kept for the transport's own headers; nothing was sent. Split it into smaller writes, or raise"
        + " maximum-frame-size (the same on every node)");
  }
}
