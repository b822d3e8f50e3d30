package io.commitlane.cluster;

import io.commitlane.storage.CommitlaneException;

/**
 * A request to a sharded database is malformed (a bad database, store or log name, a missing
 * key). Thrown where the request is built, before anything is sent; nothing was written.
 */
public final class InvalidRequestException extends CommitlaneException {
  public InvalidRequestException(String message) {
    super(message);
  }
}
