package io.commitlane.txlog;

/** The log was closed; reopen it with {@link TransactionLog#open} to use it again. */
public final class LogClosedException extends TransactionLogException {
  private static final long serialVersionUID = 1L;

  public LogClosedException(String logName) {
    super("transaction log '" + logName + "' is closed; open it again to continue");
  }
}
