package io.commitlane.replication;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.CommitlaneException;

/** A replicated log entry that does not decode; every replica refuses it the same way and applies nothing. */
public final class MalformedEntryException extends CommitlaneException {
  @InternalApi public MalformedEntryException(String message) {
    super(message);
  }
}
