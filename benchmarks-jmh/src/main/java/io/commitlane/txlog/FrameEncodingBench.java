package io.commitlane.txlog;

import io.commitlane.txlog.internal.segment.FrameEncoder;
import io.commitlane.txlog.internal.segment.RecordCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Building one log record's frame (payload encoding plus the header and payload CRC-32C) in the
 * per-thread direct buffer, without any file I/O. In this package because FrameEncoder is internal.
 * Run: {@code ./commitlane jmh -f 1 -wi 3 -i 5 FrameEncoding}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FrameEncodingBench {
  @Param({"1", "64"})
  int entries;

  @Param({"100", "1024"})
  int entryBytes;

  private List<ByteBuffer> payload;
  private long size;
  private long id;

  @Setup(Level.Trial)
  public void setUp() {
    payload = new ArrayList<>();
    for (int i = 0; i < entries; i++) {
      byte[] b = new byte[entryBytes];
      java.util.Arrays.fill(b, (byte) i);
      payload.add(ByteBuffer.wrap(b));
    }
    size = RecordCodec.payloadSize(payload, null);
  }

  @Benchmark
  public ByteBuffer encodeRecord() {
    return FrameEncoder.get().record(++id, id, 0, payload, null, size);
  }
}
