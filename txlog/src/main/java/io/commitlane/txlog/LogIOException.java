package io.commitlane.txlog;

import java.io.IOException;

/**
 * A file operation of the log failed (write, force, create, rename). After a failed force the
 * log refuses further appends: the operating system may have dropped the unsynced pages, so only
 * a reopen (which recovers from what is on disk) is safe. {@link LogFailedException} is the
 * fail-stop kind.
 */
public class LogIOException extends TransactionLogException {
  private static final long serialVersionUID = 1L;

  public LogIOException(String message, IOException cause) {
    super(message + ": " + cause.getMessage(), cause);
  }

  public LogIOException(String message, Throwable cause) {
    super(message, cause);
  }
}
