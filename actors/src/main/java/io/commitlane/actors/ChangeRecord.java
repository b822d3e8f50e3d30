package io.commitlane.actors;

import io.commitlane.storage.internal.PrintableBytes;
import io.commitlane.txlog.LogRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A transaction-log record as a protocol change feed ({@link DatabaseProtocol.OpenChangeFeed})
 * delivers it: a copy of {@link LogRecord} without the replay bytes.
 *
 * @param position the record's position: store it and resume from it
 * @param timestamp the record's timestamp (milliseconds, unique and increasing per database)
 * @param transactionId the id of the transaction that appended it
 * @param entries the record's entries, in order
 */
public record ChangeRecord(long position, long timestamp, long transactionId, List<byte[]> entries) implements ProtocolMessage {
  public ChangeRecord {
    entries = entries == null ? List.of() : List.copyOf(entries);
  }

  public static ChangeRecord of(LogRecord r) {
    List<byte[]> copies = new ArrayList<>(r.entries().size());
    for (ByteBuffer e : r.entries()) {
      byte[] b = new byte[e.remaining()];
      e.duplicate().get(b);
      copies.add(b);
    }
    return new ChangeRecord(r.position(), r.timestamp(), r.transactionId(), copies);
  }

  @Override
  public String toString() {
    return "ChangeRecord[position=" + position + ", timestamp=" + timestamp + ", transactionId=" + transactionId + ", entries=" + PrintableBytes.of(entries) + "]";
  }
}
