package io.commitlane.replication;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.PrintableBytes;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A record that a replicated commit appended to a transaction log ({@link
 * ReplicatedTransaction#log}), as a change feed delivers it. Every replica holds it at the same
 * position: the commit's index in the group's log.
 *
 * @param log the transaction log's name
 * @param index the commit's index in the group's log; store it and resume after it, on any replica
 * @param timestamp milliseconds, from the proposing node's clock, made to rise with the index
 *     (unique and increasing within the database)
 * @param entries the record's entries, in order (empty when the record only marks the commit)
 */
public record ReplicaLogRecord(String log, long index, long timestamp, List<byte[]> entries) {
  public ReplicaLogRecord {
    Objects.requireNonNull(log, "log");
    entries = List.copyOf(entries);
  }

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  /** A log name, as local databases name their logs: 1..128 of A-Z a-z 0-9 . _ - starting with a letter or digit. */
  static String checkName(String log) {
    if (log == null || !NAME.matcher(log).matches()) {
      throw new InvalidReplicaRequestException("log name " + (log == null ? "null" : '"' + log + '"')
          + " is invalid: use 1..128 of A-Z a-z 0-9 . _ - starting with a letter or digit");
    }
    return log;
  }

  /** The stored form: the timestamp, then each entry with its length. */
  @InternalApi public static byte[] encode(long timestamp, List<byte[]> entries) {
    int size = 12;
    for (byte[] e : entries) {
      size += 4 + e.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size).putLong(timestamp).putInt(entries.size());
    for (byte[] e : entries) {
      b.putInt(e.length).put(e);
    }
    return b.array();
  }

  static ReplicaLogRecord decode(String log, long index, byte[] stored) {
    ByteBuffer b = ByteBuffer.wrap(stored);
    long timestamp = b.getLong();
    int n = b.getInt();
    List<byte[]> entries = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] e = new byte[b.getInt()];
      b.get(e);
      entries.add(e);
    }
    return new ReplicaLogRecord(log, index, timestamp, entries);
  }

  @Override
  public String toString() {
    return "ReplicaLogRecord[log=" + log + ", index=" + index + ", timestamp=" + timestamp + ", entries=" + PrintableBytes.of(entries) + "]";
  }
}
