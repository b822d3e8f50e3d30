package io.commitlane.bench.persistence;

import com.typesafe.config.Config;
import io.commitlane.bench.harness.DispatcherProbe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.query.NoOffset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.query.javadsl.CurrentEventsByTagQuery;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * The persistence benchmark's measurements, each in actor systems of its own on one peer's configuration: persist
 * throughput (events/s, persist-to-handler latency, a default-dispatcher probe), recovery of one long and of many
 * short entities, a tag query over every event, and durable-state upserts. The benchmark's waits for its own
 * entities poll a counter every millisecond; they are outside every measured window.
 */
final class PersistenceLoads {
  /**
   * One measurement: a rate or a time, latency percentiles where there are, the probe's p99 where it ran, and for a
   * recovery the CPU time the whole process spent in it (every thread: a figure that a busy machine does not inflate
   * the way it does the wall time).
   */
  record Result(double value, String unit, double p50Micros, double p99Micros, double probeP99Micros, String note, double cpuMillis) {
    Result(double value, String unit, double p50Micros, double p99Micros, double probeP99Micros, String note) {
      this(value, unit, p50Micros, p99Micros, probeP99Micros, note, Double.NaN);
    }
  }

  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

  private final Config config;
  private final double warmupSeconds;
  private final double seconds;

  PersistenceLoads(Config config, double warmupSeconds, double seconds) {
    this.config = config;
    this.warmupSeconds = warmupSeconds;
    this.seconds = seconds;
  }

  private ActorSystem<Void> system() {
    return ActorSystem.create(Behaviors.empty(), "bench", config);
  }

  private static void terminate(ActorSystem<Void> system) {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().orTimeout(120, TimeUnit.SECONDS).join();
  }

  /** {@code entities} entities persisting {@code batch} events per write without pause: events/s over the window. */
  Result persist(int entities, int batch) throws Exception {
    ActorSystem<Void> system = system();
    try {
      PersistenceBenchEntity.Meters meters = new PersistenceBenchEntity.Meters();
      ActorRef<PersistenceBenchEntity.Command>[] refs = spawn(system, "p", entities, meters, false);
      await(() -> meters.recovered.sum() >= entities, "recovery of " + entities + " new entities");
      // every entity's first write (a new persistence id) before the clock: what a running service has long done
      CountDownLatch primed = new CountDownLatch(entities);
      ActorRef<Long> primedCounter = system.systemActorOf(Behaviors.<Long>receiveMessage(n -> {
        primed.countDown();
        return Behaviors.same();
      }), "primed", Props.empty());
      for (ActorRef<PersistenceBenchEntity.Command> r : refs) {
        r.tell(new PersistenceBenchEntity.Run(1, batch, primedCounter));
      }
      // an entity whose journal failed (a peer's circuit breaker) stops without a reply: it is counted, not awaited
      await(() -> primed.getCount() <= meters.failed.sum(), "the entities' first writes");
      ActorRef<Long> ignore = system.systemActorOf(Behaviors.ignore(), "ignore", Props.empty());
      for (ActorRef<PersistenceBenchEntity.Command> r : refs) {
        r.tell(new PersistenceBenchEntity.Run(-1, batch, ignore));
      }
      sleep(warmupSeconds);
      try (DispatcherProbe probe = DispatcherProbe.start((Executor) system.executionContext(), Duration.ofMillis(1))) {
        meters.events.sumThenReset();
        meters.latency.getIntervalHistogram();
        probe.windowOpened();
        long start = System.nanoTime();
        sleep(seconds);
        long events = meters.events.sumThenReset();
        double elapsed = (System.nanoTime() - start) / 1e9;
        Histogram latency = meters.latency.getIntervalHistogram();
        probe.windowClosed();
        long failed = meters.failed.sum();
        meters.running = false;
        return new Result(events / elapsed, "events/s", latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3,
            probe.window().getValueAtPercentile(99) / 1e3, failed == 0 ? "" : failed + " of " + entities
                + " entities stopped: their journal failed (circuit breaker)");
      }
    } finally {
      terminate(system);
    }
  }

  /** 100-byte durable-state upserts from {@code entities} entities without pause: upserts/s. */
  Result upserts(int entities) throws Exception {
    ActorSystem<Void> system = system();
    try {
      PersistenceBenchEntity.Meters meters = new PersistenceBenchEntity.Meters();
      for (int i = 0; i < entities; i++) {
        system.systemActorOf(PersistenceBenchCounter.create("s-" + i, meters), "s-" + i, Props.empty())
            .tell(new PersistenceBenchCounter.Next());
      }
      sleep(warmupSeconds);
      meters.events.sumThenReset();
      meters.latency.getIntervalHistogram();
      long start = System.nanoTime();
      sleep(seconds);
      long n = meters.events.sumThenReset();
      double elapsed = (System.nanoTime() - start) / 1e9;
      Histogram latency = meters.latency.getIntervalHistogram();
      meters.running = false;
      if (n == 0) {
        return new Result(Double.NaN, "upserts/s", 0, 0, 0, "no upsert completed in " + seconds + " s");
      }
      return new Result(n / elapsed, "upserts/s", latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3, 0, "");
    } finally {
      terminate(system);
    }
  }

  /** Write {@code events} events to each of {@code entities} entities (persistAll of up to 100), then stop. */
  void populate(String prefix, int entities, int events, boolean tagged) throws Exception {
    ActorSystem<Void> system = system();
    try {
      PersistenceBenchEntity.Meters meters = new PersistenceBenchEntity.Meters();
      ActorRef<PersistenceBenchEntity.Command>[] refs = spawn(system, prefix, entities, meters, tagged);
      await(() -> meters.recovered.sum() >= entities, "recovery before populating");
      int batch = Math.min(100, events);
      // at most 200 entities write at once: the JDBC peers' pools queue the rest anyway, and 10,000 at once would
      // only measure their queues
      int inFlight = Math.min(entities, 200);
      for (int i = 0; i < entities; i += inFlight) {
        CountDownLatch wave = new CountDownLatch(Math.min(inFlight, entities - i));
        ActorRef<Long> waveCounter = system.systemActorOf(Behaviors.<Long>receiveMessage(n -> {
          wave.countDown();
          return Behaviors.same();
        }), "wave-" + i, Props.empty());
        for (int j = i; j < Math.min(entities, i + inFlight); j++) {
          refs[j].tell(new PersistenceBenchEntity.Run(events / batch, batch, waveCounter));
        }
        if (!wave.await(30, TimeUnit.MINUTES)) {
          throw new IllegalStateException("populating did not finish");
        }
      }
    } finally {
      terminate(system);
    }
  }

  /**
   * The times to recover {@code entities} entities of {@code prefix} holding {@code events} events each, {@code
   * repetitions} times, each in a new actor system. With a warm-up, the same recovery runs once before, unmeasured,
   * in a system of its own: the measured ones then time the journal's reads and Pekko's replay, not the JIT compiling
   * this peer's replay path on its first use. One recovery of a short history takes a few milliseconds: a round
   * repeats it so that its median is not one sample of scheduling noise.
   */
  List<Result> recover(String prefix, int entities, int events, int repetitions) throws Exception {
    if (warmupSeconds > 0) {
      recoverOnce(prefix, entities, events);
    }
    List<Result> times = new ArrayList<>(repetitions);
    for (int i = 0; i < repetitions; i++) {
      times.add(recoverOnce(prefix, entities, events));
    }
    return times;
  }

  private Result recoverOnce(String prefix, int entities, int events) throws Exception {
    ActorSystem<Void> system = system();
    try {
      PersistenceBenchEntity.Meters meters = new PersistenceBenchEntity.Meters();
      spawn(system, "warm", 1, meters, false);   // starts the plugins and opens the store before the clock starts
      await(() -> meters.recovered.sum() >= 1, "the plugins' start");
      long cpu = OS.getProcessCpuTime();
      long start = System.nanoTime();
      spawn(system, prefix, entities, meters, false);
      await(() -> meters.recovered.sum() >= entities + 1, "recovery");
      double elapsed = (System.nanoTime() - start) / 1e9;
      double cpuMillis = (OS.getProcessCpuTime() - cpu) / 1e6;
      long recovered = meters.recoveredEvents.sum();
      if (recovered != (long) entities * events) {
        throw new IllegalStateException("recovered " + recovered + " events, expected " + (long) entities * events);
      }
      return new Result(elapsed * 1e3, "ms", 0, 0, 0, String.format(java.util.Locale.ROOT, "%.0f events/s", recovered / elapsed),
          cpuMillis);
    } finally {
      terminate(system);
    }
  }

  /** The time to read every event tagged "t" with {@code currentEventsByTag} from the first. */
  Result eventsByTag(String readJournal, long expected) throws Exception {
    ActorSystem<Void> system = system();
    try {
      CurrentEventsByTagQuery queries = PersistenceQuery.get(system.classicSystem())
          .getReadJournalFor(CurrentEventsByTagQuery.class, readJournal);
      long start = System.nanoTime();
      long n = queries.currentEventsByTag("t", NoOffset.getInstance()).runWith(Sink.fold(0L, (a, e) -> a + 1), system)
          .toCompletableFuture().get(60, TimeUnit.MINUTES);
      double elapsed = (System.nanoTime() - start) / 1e9;
      if (n != expected) {
        throw new IllegalStateException("read " + n + " tagged events, expected " + expected);
      }
      return new Result(n / elapsed, "events/s", 0, 0, 0, String.format(java.util.Locale.ROOT, "%.1f s", elapsed));
    } finally {
      terminate(system);
    }
  }

  @SuppressWarnings("unchecked")
  private static ActorRef<PersistenceBenchEntity.Command>[] spawn(ActorSystem<Void> system, String prefix, int n,
      PersistenceBenchEntity.Meters meters, boolean tagged) {
    ActorRef<PersistenceBenchEntity.Command>[] refs = new ActorRef[n];
    for (int i = 0; i < n; i++) {
      refs[i] = system.systemActorOf(PersistenceBenchEntity.create(prefix + "-" + i, meters, tagged), prefix + "-" + i, Props.empty());
    }
    return refs;
  }

  private static void await(java.util.function.BooleanSupplier done, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " did not finish in 30 minutes");
      }
      Thread.sleep(1); // the benchmark's wait for its own entities, outside the measured window
    }
  }

  private static void sleep(double seconds) throws InterruptedException {
    Thread.sleep((long) (seconds * 1000));
  }
}
