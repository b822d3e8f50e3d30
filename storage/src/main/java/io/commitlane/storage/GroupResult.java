package io.commitlane.storage;

/** What {@link Database#commitGroup} did to each member, by position: committed or failed. */
public final class GroupResult {
  private final CommitResult[] results;
  private final Throwable[] failures;

  GroupResult(int size) {
    results = new CommitResult[size];
    failures = new Throwable[size];
  }

  void committed(int i, CommitResult r) {
    results[i] = r;
  }

  void failed(int i, Throwable cause) {
    failures[i] = cause;
  }

  public int size() {
    return results.length;
  }

  public boolean isCommitted(int i) {
    return failures[i] == null;
  }

  /** Member {@code i}'s result, or null when it failed. */
  public CommitResult result(int i) {
    return results[i];
  }

  /**
   * Why member {@code i} failed, or null when it committed: a {@link ConflictException} (retryable),
   * a {@link DatabaseClosedException}, the write's {@link StorageException}, a hook's failure.
   */
  public Throwable failure(int i) {
    return failures[i];
  }
}
