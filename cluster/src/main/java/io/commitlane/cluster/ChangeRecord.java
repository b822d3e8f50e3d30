package io.commitlane.cluster;

import io.commitlane.txlog.LogRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A transaction-log record as a remote change feed delivers it (a copy of {@link LogRecord}
 * without the replay bytes).
 *
 * @param position the record's position: store it and resume from it
 * @param timestamp the record's timestamp (milliseconds, unique and increasing per database)
 * @param transactionId the id of the transaction that appended it (unique within one ownership)
 * @param entries the record's entries, in order
 */
public record ChangeRecord(long position, long timestamp, long transactionId, List<byte[]> entries) implements CborSerializable {
  public ChangeRecord {
    entries = entries == null ? List.of() : List.copyOf(entries);
  }

  static ChangeRecord of(LogRecord r) {
    List<byte[]> copies = new ArrayList<>(r.entries().size());
    for (ByteBuffer e : r.entries()) {
      byte[] b = new byte[e.remaining()];
      e.duplicate().get(b);
      copies.add(b);
    }
    return new ChangeRecord(r.position(), r.timestamp(), r.transactionId(), copies);
  }
}
