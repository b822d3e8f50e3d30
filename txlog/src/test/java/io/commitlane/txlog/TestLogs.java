package io.commitlane.txlog;

import io.commitlane.txlog.internal.segment.Segment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Small helpers shared by the txlog tests. */
public final class TestLogs {
  private TestLogs() {}

  static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  static List<ByteBuffer> entries(String... values) {
    List<ByteBuffer> list = new ArrayList<>();
    for (String v : values) {
      list.add(bytes(v));
    }
    return list;
  }

  static String text(ByteBuffer b) {
    ByteBuffer d = b.duplicate();
    byte[] a = new byte[d.remaining()];
    d.get(a);
    return new String(a, StandardCharsets.UTF_8);
  }

  /** Appends a record whose single entry is {@code value} and whose writes are "w:" + value. */
  static long append(TransactionLog log, long txn, String value) {
    return log.append(txn, txn, entries(value), bytes("w:" + value));
  }

  /** Every committed record from the start; fails on corruption. */
  public static List<LogRecord> readAll(TransactionLog log) {
    return readAll(log, ReadRequest.fromStart());
  }

  public static List<LogRecord> readAll(TransactionLog log, ReadRequest request) {
    List<LogRecord> out = new ArrayList<>();
    try (LogReader reader = log.reader(request)) {
      for (LogRecord r = reader.next(); r != null; r = reader.next()) {
        out.add(r);
      }
    }
    return out;
  }

  static List<String> values(List<LogRecord> records) {
    List<String> out = new ArrayList<>();
    for (LogRecord r : records) {
      out.add(text(r.entries().get(0)));
    }
    return out;
  }

  static List<Long> txns(List<LogRecord> records) {
    List<Long> out = new ArrayList<>();
    for (LogRecord r : records) {
      out.add(r.transactionId());
    }
    return out;
  }

  static Path segmentFile(Path dir, long segment) {
    return dir.resolve(Segment.fileName(segment));
  }

  /** Closes a log whose files were pulled away by a simulated crash; errors are expected. */
  static void abandon(TransactionLog log) {
    try {
      log.close();
    } catch (TransactionLogException expected) {
      // The crashed handles cannot close cleanly; the log releases them anyway.
    }
  }
}
