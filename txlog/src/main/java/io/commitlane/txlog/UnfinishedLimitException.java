package io.commitlane.txlog;

/**
 * A {@link AppendMode#LEADERLESS} append waited {@code completionRingWait} for a slot of the
 * completion ring: the newest append may be at most {@code completionRingSlots} records past the
 * oldest record not yet finished or aborted. Nothing was appended: finish or abort that record
 * (a caller holding it while appending more waits on itself), or raise the settings.
 */
public final class UnfinishedLimitException extends TransactionLogException {
  private static final long serialVersionUID = 1L;

  public UnfinishedLimitException(String logName, int slots, java.time.Duration waited) {
    super("transaction log '" + logName + "': the append would be more than " + slots
        + " records (completionRingSlots) past the oldest unfinished record, and none finished"
        + " within " + waited + " (completionRingWait); nothing was appended: finish or abort"
        + " earlier records first, or raise completionRingSlots");
  }
}
