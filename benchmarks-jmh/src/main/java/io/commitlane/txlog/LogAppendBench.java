package io.commitlane.txlog;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One record appended and finished through the public {@link TransactionLog} API into a temporary
 * directory, durability {@code none} (the write reaches the OS; no fsync): framing, the append
 * lock and the write call. Run: {@code ./commitlane jmh -f 1 -wi 3 -i 5 LogAppend}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LogAppendBench {
  @Param({"100", "1024"})
  int entryBytes;

  private Path dir;
  private TransactionLog log;
  private List<ByteBuffer> entries;
  private long id;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("commitlane-jmh-log");
    log = TransactionLog.open(dir.resolve("log"), LogSettings.defaults().withDurability(Durability.NONE));
    entries = List.of(ByteBuffer.wrap(new byte[entryBytes]));
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    log.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Benchmark
  public long appendAndFinish() {
    long position = log.append(++id, id, entries, null);
    log.finish(position, () -> 0L);
    return position;
  }
}
