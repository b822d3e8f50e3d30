package io.commitlane.replication;

import io.commitlane.storage.CommitlaneException;

/** Every replica refused a replicated commit as invalid (a bad store name, a malformed entry): nothing was written. */
public final class CommitRefusedException extends CommitlaneException {
  CommitRefusedException(long index, String reason) {
    super("replicated commit at log index " + index + " refused: " + reason);
  }
}
