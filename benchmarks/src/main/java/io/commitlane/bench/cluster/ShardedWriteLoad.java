package io.commitlane.bench.cluster;

import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.WindowListener;
import io.commitlane.cluster.DatabaseSharding;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The cluster bench's load: on every node given, {@code clients} clients each keep {@code
 * inFlight} 1-key writes of 100-byte values going through sharding to databases {@code bench-0}
 * ... {@code bench-(databases-1)}, chosen at random, for a warm-up and then a measured window.
 * Each write's latency is timed from the call to its reply.
 */
public final class ShardedWriteLoad {
  public static final int VALUE_BYTES = 100;
  public static final int KEY_SPACE = 1 << 20;
  /** Request ids of writes that carry one: unique in the run. */
  private static final AtomicLong REQUESTS = new AtomicLong();

  final int databases;
  final int clients;
  final int inFlight;
  private final double warmup;
  private final double seconds;

  /**
   * What a window's writes did, per second, and the latency of those acknowledged as committed
   * (nanoseconds; NaN when none was).
   */
  public record Rates(double committed, double conflicted, double failed, double p50Nanos, double p99Nanos) {
    public static Rates of(double seconds, long committed, long conflicted, long failed, Histogram latency) {
      boolean any = latency.getTotalCount() > 0;
      return new Rates(committed / seconds, conflicted / seconds, failed / seconds,
          any ? latency.getValueAtPercentile(50) : Double.NaN, any ? latency.getValueAtPercentile(99) : Double.NaN);
    }

    /**
     * The rates of a load that keeps counting on its own threads: waits {@code warmup} seconds, then measures what the
     * counters and the latency recorder gained over {@code seconds}, telling {@code listener} when the window opens and
     * closes.
     */
    public static Rates window(double warmup, double seconds, LongAdder committed, LongAdder conflicted, LongAdder failed,
        Recorder latency, WindowListener listener) throws Exception {
      ContentionRunner.pause(warmup);
      long c0 = committed.sum();
      long f0 = failed.sum();
      long x0 = conflicted.sum();
      latency.reset();
      listener.windowOpened();
      long start = System.nanoTime();
      ContentionRunner.pause(seconds);
      long c = committed.sum() - c0;
      long f = failed.sum() - f0;
      long x = conflicted.sum() - x0;
      Histogram window = latency.getIntervalHistogram();
      double elapsed = (System.nanoTime() - start) / 1e9;
      listener.windowClosed();
      return of(elapsed, c, x, f, window);
    }
  }

  public ShardedWriteLoad(int databases, int clients, int inFlight, double warmup, double seconds) {
    this.databases = databases;
    this.clients = clients;
    this.inFlight = inFlight;
    this.warmup = warmup;
    this.seconds = seconds;
  }

  /** Opens every database (so the measurement starts with them open). */
  public void openAll(DatabaseSharding d) throws Exception {
    for (int i = 0; i < databases; i++) {
      d.stats("bench-" + i).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  /** How many of the databases each node owns. */
  String owners(DatabaseSharding d) throws Exception {
    Map<String, Integer> byOwner = new LinkedHashMap<>();
    for (int i = 0; i < databases; i++) {
      DatabaseStats st = (DatabaseStats) d.stats("bench-" + i).toCompletableFuture().get(30, TimeUnit.SECONDS);
      byOwner.merge(st.owner().replaceAll(".*@", ""), 1, Integer::sum);
    }
    return byOwner.toString();
  }

  /** Every client keeps {@code inFlight} writes going for warm-up + measured seconds, each with a request id of its own when {@code ids}. */
  public Rates drive(List<DatabaseSharding> nodes, boolean ids) throws InterruptedException {
    try {
      return drive(nodes, ids, WindowListener.NONE);
    } catch (InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e); // WindowListener.NONE throws nothing
    }
  }

  /** As {@link #drive(List, boolean)}, telling {@code listener} when the measured window opens and closes. */
  public Rates drive(List<DatabaseSharding> nodes, boolean ids, WindowListener listener) throws Exception {
    LongAdder committed = new LongAdder();
    LongAdder conflicted = new LongAdder();
    LongAdder failed = new LongAdder();
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    LongAdder outstanding = new LongAdder();
    Recorder latency = new Recorder(3);
    for (DatabaseSharding node : nodes) {
      for (int c = 0; c < clients; c++) {
        for (int f = 0; f < inFlight; f++) {
          outstanding.increment();
          next(node, ids, committed, conflicted, failed, latency, measuring, stop, outstanding);
        }
      }
    }
    Thread.sleep((long) (warmup * 1000)); // the measurement window itself: nothing waits on it for a result
    measuring.set(true);
    latency.reset();
    listener.windowOpened();
    long start = System.nanoTime();
    Thread.sleep((long) (seconds * 1000)); // the measured window: the load runs on its own threads meanwhile
    double elapsed = (System.nanoTime() - start) / 1e9;
    long c = committed.sum();
    long x = conflicted.sum();
    long f = failed.sum();
    Histogram window = latency.getIntervalHistogram();
    listener.windowClosed();
    stop.set(true);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (outstanding.sum() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10); // let in-flight commits finish before the next variant starts
    }
    return Rates.of(elapsed, c, x, f, window);
  }

  private void next(DatabaseSharding node, boolean ids, LongAdder committed, LongAdder conflicted, LongAdder failed, Recorder latency,
      AtomicBoolean measuring, AtomicBoolean stop, LongAdder outstanding) {
    if (stop.get()) {
      outstanding.decrement();
      return;
    }
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    String db = "bench-" + rnd.nextInt(databases);
    byte[] key = ByteBuffer.allocate(8).putLong(rnd.nextInt(KEY_SPACE)).array();
    byte[] value = new byte[VALUE_BYTES];
    rnd.nextBytes(value);
    RequestId id = ids ? RequestId.of("w" + REQUESTS.incrementAndGet()) : null;
    long sent = System.nanoTime();
    node.write(db, List.of(Mutation.put(key, value)), null, id).whenComplete((reply, err) -> {
      if (measuring.get()) {
        if (reply instanceof DatabaseProtocol.Committed) {
          committed.increment();
          latency.recordValue(System.nanoTime() - sent);
        } else if (reply instanceof DatabaseProtocol.Conflicted) {
          conflicted.increment(); // a blind write whose lock bucket another commit wrote after its baseline
        } else {
          failed.increment();
        }
      }
      next(node, ids, committed, conflicted, failed, latency, measuring, stop, outstanding);
    });
  }
}
