package io.commitlane.replication;

import io.commitlane.storage.CommitlaneException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A replicated commit's expectation ({@link ReplicatedTransaction#expect}) did not hold at the
 * commit's place in the group's log: nothing was written. {@link #actual()} says what each
 * expected key held there, so the caller can decide again without reading.
 */
public final class ReplicaExpectationException extends CommitlaneException {
  private final long index;
  private final List<byte[]> actual;

  ReplicaExpectationException(long index, List<byte[]> actual) {
    super("replicated commit at log index " + index + " was not applied: a key did not hold its expected value there;"
        + " nothing was written, decide again with the values it held");
    this.index = index;
    this.actual = Collections.unmodifiableList(new ArrayList<>(actual));
  }

  /** The log index of the entry whose expectations failed. */
  public long index() {
    return index;
  }

  /**
   * What each expected key held at the commit's place in the log (null: absent), in the order of
   * the transaction's {@code expect} calls.
   */
  public List<byte[]> actual() {
    List<byte[]> copy = new ArrayList<>(actual.size());
    actual.forEach(v -> copy.add(v == null ? null : v.clone()));
    return copy;
  }

  /** Not retryable as it is: the same commit fails the same way until the caller changes it. */
  @Override
  public boolean isRetryable() {
    return false;
  }
}
