package io.commitlane.storage.internal.commit;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Transaction;

/**
 * A transaction's commit in two halves, for a pipeline that runs commits in two lanes (the actor
 * pipeline's two-lane mode): {@link #prepareWrite} validates and runs the commit hooks'
 * before-write steps (the transaction log's append) on the calling thread and leaves the commit
 * holding its keys' locks; {@link #writePrepared} or {@link #abandonPrepared} then runs exactly
 * once, on any thread, after a hand-off that orders memory (such as a queue). These are seams of
 * the commit path, not part of {@link Transaction}'s API: {@code Transaction} installs its
 * implementation here when its class is initialised, which is before any transaction exists.
 */
public final class TwoLaneCommits {
  /** The four halves as {@link Transaction} implements them. */
  public interface Seam {
    boolean prepareWrite(Transaction t);

    CommitResult writePrepared(Transaction t);

    Throwable abandonPrepared(Transaction t, Throwable cause);

    boolean isPrepared(Transaction t);
  }

  private static volatile Seam seam;

  private TwoLaneCommits() {}

  /** Called once, by {@link Transaction}'s class initialiser. */
  public static void install(Seam implementation) {
    if (seam != null) {
      throw new IllegalStateException("the two-lane commit seam is installed already");
    }
    seam = implementation;
  }

  /**
   * Validates {@code t} and runs the commit hooks' before-write steps on the calling thread.
   * Returns true when the commit is prepared: it holds its keys' locks until {@link
   * #writePrepared} or {@link #abandonPrepared} runs. Returns false when there was nothing to
   * write (the transaction is committed). On {@link ConflictException} or any other failure
   * nothing is held and the transaction has failed.
   */
  public static boolean prepareWrite(Transaction t) {
    return seam.prepareWrite(t);
  }

  /** The second half of a prepared commit: write it to RocksDB and release its locks. */
  public static CommitResult writePrepared(Transaction t) {
    return seam.writePrepared(t);
  }

  /**
   * A prepared commit that will not be written (its pipeline is closing): undo its log append and
   * release its locks. Returns what the committer should hear: {@code cause}, or a {@code
   * CommitOutcomeUnknownException} when the append could not be undone.
   */
  public static Throwable abandonPrepared(Transaction t, Throwable cause) {
    return seam.abandonPrepared(t, cause);
  }

  /** Whether {@link #prepareWrite} prepared {@code t} and neither its write nor its abandon ran yet. */
  public static boolean isPrepared(Transaction t) {
    return seam.isPrepared(t);
  }
}
