package io.commitlane.storage;

import java.nio.file.Path;

/**
 * {@link Transaction#useLog} on a database that has no transaction-log wiring: a {@link Database}
 * opened by the storage module alone writes no logs, so the entries would be dropped. Open the
 * database through the actors module ({@code Commitlane.get(system).open}), which installs the logs,
 * or do not call {@code useLog}.
 */
public final class LogNotAvailableException extends CommitlaneException {
  public LogNotAvailableException(String logName, Path path) {
    super("transaction log '" + logName + "' cannot be used: database " + path + " was opened without"
        + " transaction logs (storage alone writes none, so the entries would be lost); open it with"
        + " Commitlane.get(system).open to write logs, or commit without useLog");
  }
}
