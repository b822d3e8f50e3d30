package io.commitlane.storage;

import io.commitlane.storage.internal.commit.TwoLaneCommits;

/** {@link Transaction}'s two-lane commit halves, as {@link TwoLaneCommits} reaches them. */
final class TwoLaneSeam implements TwoLaneCommits.Seam {
  @Override
  public boolean prepareWrite(Transaction t) {
    return t.prepareWrite();
  }

  @Override
  public CommitResult writePrepared(Transaction t) {
    return t.writePrepared();
  }

  @Override
  public Throwable abandonPrepared(Transaction t, Throwable cause) {
    return t.abandonPrepared(cause);
  }

  @Override
  public boolean isPrepared(Transaction t) {
    return t.isPrepared();
  }
}
