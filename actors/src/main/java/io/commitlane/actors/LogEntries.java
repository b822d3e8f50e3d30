package io.commitlane.actors;

import io.commitlane.actors.internal.protocol.RequestNames;
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
    if (entries == null) {
      entries = List.of();
    } else {
      for (byte[] entry : entries) {
        if (entry == null) {
          throw new InvalidRequestException("LogEntries.entries of log " + log + " holds a null entry; an entry may be empty,"
              + " not null");
        }
      }
      entries = List.copyOf(entries);
    }
  }

  /** A record of {@code entries}, in order (none: a record that only marks the commit). */
  public static LogEntries of(String log, byte[]... entries) {
    if (entries == null) {
      throw new InvalidRequestException("LogEntries.of(" + log + ", null): the entries are null; pass none for a record"
          + " that only marks the commit");
    }
    return new LogEntries(log, java.util.Arrays.asList(entries));
  }

  @Override
  public String toString() {
    return "LogEntries[" + log + " " + PrintableBytes.of(entries) + "]";
  }
}
