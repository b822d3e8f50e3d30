package io.commitlane.txlog;

/** The base of every error the transaction log throws; unchecked. */
public class TransactionLogException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TransactionLogException(String message) {
    super(message);
  }

  public TransactionLogException(String message, Throwable cause) {
    super(message, cause);
  }
}
