package io.commitlane.actors;

import io.commitlane.storage.CommitlaneException;

/**
 * A request of the database protocol is malformed (a bad store or log name, a missing key, a
 * write with nothing to write). Thrown where the request is built, before anything is sent;
 * nothing was written.
 */
public final class InvalidRequestException extends CommitlaneException {
  public InvalidRequestException(String message) {
    super(message);
  }
}
