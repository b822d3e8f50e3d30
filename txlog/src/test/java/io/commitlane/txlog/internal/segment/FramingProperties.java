package io.commitlane.txlog.internal.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TestLogs;
import io.commitlane.txlog.TransactionLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Any record content survives encode, frame and decode, in memory and through a log file. */
class FramingProperties {

  record Content(long txn, long timestamp, int flags, List<byte[]> entries, byte[] writes) {}

  @Provide
  Arbitrary<Content> contents() {
    Arbitrary<byte[]> blob = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
    return Combinators.combine(
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.integers().between(0, 0xFFFF),
            blob.list().ofMaxSize(12),
            blob.injectNull(0.3))
        .as(Content::new);
  }

  @Property(tries = 500)
  void frameRoundTrip(@ForAll("contents") Content c) {
    List<ByteBuffer> entries = buffers(c.entries());
    ByteBuffer writes = c.writes() == null ? null : ByteBuffer.wrap(c.writes());
    long payloadSize = RecordCodec.payloadSize(entries, writes);
    ByteBuffer frame = FrameEncoder.get().record(c.txn(), c.timestamp(), c.flags(), entries,
        writes, payloadSize);
    ByteBuffer copy = ByteBuffer.allocate(frame.remaining()).put(frame.duplicate()).flip();

    assertEquals(Frame.HEADER_BYTES + payloadSize,
        Frame.probe(copy, 0, copy.capacity(), new CRC32C()));
    int flags = Frame.flagsAt(copy, 0);
    assertEquals(Frame.TYPE_RECORD, Frame.type(flags));
    LogRecord r = RecordCodec.decode(7, Frame.timestamp(copy, 0), Frame.userFlags(flags),
        Frame.payload(copy, 0));
    assertSame(c, r);
    // The encoder read the caller's buffers without consuming them.
    for (ByteBuffer e : entries) {
      assertEquals(0, e.position());
    }
  }

  @Property(tries = 40)
  void recordsRoundTripThroughALogAndAReopen(
      @ForAll @Size(max = 20) List<@IntRange(min = 0, max = 1000) Integer> seeds,
      @ForAll("contents") Content extra, @ForAll AppendMode mode) throws IOException {
    Path dir = Files.createTempDirectory("txlog-prop");
    try {
      List<Content> written = new ArrayList<>();
      LogSettings settings = LogSettings.defaults().withAppendMode(mode).withMaxSegmentBytes(4096);
      try (TransactionLog log = TransactionLog.open(dir, settings)) {
        for (int seed : seeds) {
          Content c = new Content(seed, seed * 3L, seed % 7, List.of(new byte[seed % 300],
              new byte[] {(byte) seed}), seed % 2 == 0 ? null : new byte[seed % 50]);
          written.add(c);
        }
        written.add(extra);
        for (Content c : written) {
          long p = log.append(c.txn(), c.timestamp(), c.flags(), buffers(c.entries()),
              c.writes() == null ? null : ByteBuffer.wrap(c.writes()));
          log.finish(p, () -> 0);
        }
      }
      try (TransactionLog log = TransactionLog.open(dir, settings)) {
        List<LogRecord> read = TestLogs.readAll(log);
        assertEquals(written.size(), read.size());
        for (int i = 0; i < read.size(); i++) {
          assertSame(written.get(i), read.get(i));
          assertTrue(read.get(i).entries().stream().allMatch(ByteBuffer::isReadOnly));
        }
      }
    } finally {
      deleteTree(dir);
    }
  }

  private static void assertSame(Content c, LogRecord r) {
    assertEquals(c.txn(), r.transactionId());
    assertEquals(c.timestamp(), r.timestamp());
    assertEquals(c.flags(), r.flags());
    assertEquals(c.entries().size(), r.entries().size());
    for (int i = 0; i < c.entries().size(); i++) {
      assertArrayEquals(c.entries().get(i), array(r.entries().get(i)));
    }
    if (c.writes() == null) {
      assertNull(r.writes());
    } else {
      assertArrayEquals(c.writes(), array(r.writes()));
    }
  }

  private static List<ByteBuffer> buffers(List<byte[]> arrays) {
    List<ByteBuffer> out = new ArrayList<>();
    for (byte[] a : arrays) {
      // An offset slice, so the encoder must honour position and limit.
      ByteBuffer padded = ByteBuffer.allocate(a.length + 4);
      padded.position(2);
      padded.put(a);
      out.add(padded.position(2).limit(2 + a.length).slice());
    }
    return out;
  }

  private static byte[] array(ByteBuffer b) {
    byte[] a = new byte[b.remaining()];
    b.duplicate().get(a);
    return a;
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
