package io.commitlane.actors;

import io.commitlane.storage.internal.PrintableBytes;
import java.util.List;

/**
 * The transaction-log record a write appends: the log's name and the record's entries.
 *
 * @param log the log (a directory under the database's {@code txlog/}), created on first use
 * @param entries the record's entries, in order (may be empty: the record then only marks the commit)
 */
public record LogEntries(String log, List<byte[]> entries) {
  public LogEntries {
    RequestNames.log(log);
    entries = entries == null ? List.of() : List.copyOf(entries);
  }

  public static LogEntries of(String log, byte[]... entries) {
    return new LogEntries(log, List.of(entries));
  }

  @Override
  public String toString() {
    return "LogEntries[" + log + " " + PrintableBytes.of(entries) + "]";
  }
}
