package io.commitlane.txlog;

import io.commitlane.annotation.InternalApi;

/**
 * The log stopped for good (fail-stop): an I/O error hit a buffer write, fsync or segment switch
 * after records had already claimed their place in it, so the failure cannot be pinned on one
 * caller and nothing after it can be guaranteed. Every later
 * append, finish, abort and durability request fails with this error; nothing is acknowledged
 * that the log cannot vouch for. Reopen the database (the log recovers from what is on disk).
 */
public final class LogFailedException extends LogIOException {
  private static final long serialVersionUID = 1L;

  public LogFailedException(String logName, String what, Throwable cause) {
    super("transaction log '" + logName + "' failed and stopped: " + what + " failed after records"
        + " were claimed in it" + (cause == null || cause.getMessage() == null ? "" : " (" + cause.getMessage() + ")")
        + "; it refuses further appends and commits: reopen the database to recover", cause);
  }

  /** INTERNAL API: the same failure, thrown again for a later caller (keeps the original as the cause). */
  @InternalApi
  public LogFailedException(LogFailedException first) {
    super(first.getMessage(), first);
  }
}
