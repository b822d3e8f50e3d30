package io.commitlane.micrometer;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineStats;
import io.commitlane.storage.StorageStats;
import io.commitlane.txlog.LogStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/**
 * Micrometer meters for one commitlane database, all tagged {@code db} (the database
 * directory's name unless given):
 *
 * <ul>
 *   <li>gauges {@code commitlane.queue.depth}, {@code commitlane.write.lane.depth}, {@code commitlane.commits.in.flight}, {@code
 *       commitlane.executors} (tag {@code state}: {@code started} or {@code idle});
 *   <li>counter {@code commitlane.commits} (tag {@code outcome}: {@code committed}, {@code
 *       conflicted}, {@code overloaded}, {@code failed}), {@code commitlane.commits.admitted},
 *       {@code commitlane.commits.retried};
 *   <li>timers {@code commitlane.commit.queue.wait} (admission to an executor taking the commit)
 *       and {@code commitlane.commit.execution} (from there to the outcome), with time gauges of
 *       their last interval's percentiles ({@code ...percentile}, tag {@code phi}: 0.5, 0.99, 1);
 *   <li>storage: counters {@code commitlane.write.groups}, {@code commitlane.write.group.members},
 *       {@code commitlane.conflicts.conservative}; gauge {@code commitlane.validation.bytes};
 *   <li>per transaction log (tag {@code log}): gauges {@code commitlane.txlog.segments}, {@code
 *       commitlane.txlog.bytes}, {@code commitlane.txlog.unflushed.segments} (segments kept because
 *       they hold records RocksDB has not flushed), {@code commitlane.txlog.uncommitted}; counters
 *       {@code commitlane.txlog.records}, {@code commitlane.txlog.fsyncs}, and {@code
 *       commitlane.txlog.replayed} (transactions replayed when the database opened);
 *   <li>RocksDB: gauge {@code commitlane.health} (0 OK, 1 DEGRADED, 2 FAILED), gauges in bytes
 *       {@code commitlane.rocksdb.compaction.pending}, {@code commitlane.rocksdb.memtable.size},
 *       {@code commitlane.rocksdb.sst.live.size}, {@code commitlane.rocksdb.block.cache.usage},
 *       gauges {@code commitlane.rocksdb.block.cache.hit.ratio}, {@code
 *       commitlane.rocksdb.write.delayed.rate} (bytes/s), {@code commitlane.rocksdb.write.stopped},
 *       {@code commitlane.rocksdb.compactions.running}, {@code commitlane.rocksdb.flushes.running},
 *       {@code commitlane.rocksdb.level0.files}, {@code commitlane.rocksdb.table.readers.size} (bytes),
 *       and counter {@code commitlane.rocksdb.write.stall} (seconds).
 * </ul>
 *
 * <p>Meters read a snapshot of {@link CommitlaneDatabase#stats()} taken at most once per {@code
 * sampleInterval} (default 1 s), so a scrape of many meters costs one snapshot. The snapshot's
 * latency histograms are intervals since the previous snapshot by anyone: while this binder is
 * bound, read latencies from the registry, not from {@code stats()}. Logs created after binding
 * get their meters at the next snapshot.
 *
 * <pre>{@code
 * new CommitlaneMetrics(db).bindTo(registry);
 * }</pre>
 */
public final class CommitlaneMetrics implements MeterBinder {
  private static final double[] PERCENTILES = {0.5, 0.99, 1.0};

  private final CommitlaneDatabase db;
  private final Tags tags;
  private final long sampleNanos;
  private MeterRegistry registry;
  private final Set<String> logsBound = new HashSet<>();

  // Guarded by this.
  private PipelineStats last;
  private long lastAt;
  private final Cumulative queueWait = new Cumulative();
  private final Cumulative execution = new Cumulative();

  /** Meters for {@code db}, tagged with its directory's name, sampled at most once a second. */
  public CommitlaneMetrics(CommitlaneDatabase db) {
    this(db, nameOf(db.path()), Duration.ofSeconds(1));
  }

  /**
   * @param name the {@code db} tag
   * @param sampleInterval how old a stats snapshot may be before a meter read takes a new one
   */
  public CommitlaneMetrics(CommitlaneDatabase db, String name, Duration sampleInterval) {
    this.db = Objects.requireNonNull(db, "db");
    this.tags = Tags.of("db", Objects.requireNonNull(name, "name"));
    if (sampleInterval.isNegative()) {
      throw new IllegalArgumentException("sampleInterval must be zero or more: " + sampleInterval);
    }
    this.sampleNanos = sampleInterval.toNanos();
  }

  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    if (this.registry != null) {
      throw new IllegalStateException("already bound: one binder per registry");
    }
    this.registry = registry;
    gauge("commitlane.queue.depth", "commits admitted and not yet taken by an executor", Tags.empty(),
        s -> s.queueDepth());
    gauge("commitlane.write.lane.depth", "two-lane mode: commits validated and logged, waiting for their write",
        Tags.empty(), s -> s.writeLaneDepth());
    gauge("commitlane.commits.in.flight", "commits admitted and not yet completed", Tags.empty(), s -> s.inFlight());
    gauge("commitlane.executors", "commit executors started since open", Tags.of("state", "started"),
        s -> s.executorsStarted());
    gauge("commitlane.executors", "commit executors waiting for work", Tags.of("state", "idle"), s -> s.executorsIdle());
    counter("commitlane.commits", "commits by outcome", Tags.of("outcome", "committed"), s -> s.committed());
    counter("commitlane.commits", "commits by outcome", Tags.of("outcome", "conflicted"), s -> s.conflicts());
    counter("commitlane.commits", "commits by outcome", Tags.of("outcome", "overloaded"), s -> s.overloaded());
    counter("commitlane.commits", "commits by outcome", Tags.of("outcome", "failed"), s -> s.failed());
    counter("commitlane.commits.admitted", "commits admitted into the queue", Tags.empty(), s -> s.admitted());
    counter("commitlane.commits.retried", "attempts the retry helpers made after a conflict", Tags.empty(),
        s -> s.retries());
    timer("commitlane.commit.queue.wait", "from admission to an executor taking the commit", queueWait);
    timer("commitlane.commit.execution", "from an executor taking the commit to its outcome", execution);
    counter("commitlane.write.groups", "merged write groups written", Tags.empty(), s -> s.storage().groups());
    counter("commitlane.write.group.members", "commits written in merged groups", Tags.empty(),
        s -> s.storage().groupMembers());
    counter("commitlane.conflicts.conservative", "conflicts counted because validation's record no longer reached back",
        Tags.empty(), s -> s.storage().conservativeConflicts());
    Gauge.builder("commitlane.validation.bytes", db, d -> validationBytes(sample().storage()))
        .tags(tags).description("memory held by optimistic validation").baseUnit("bytes").register(registry);
    bindRocksDb();
    bindLogs(sample());
  }

  /** RocksDB's health and the numbers an operator watches before a write stall or a full disk. */
  private void bindRocksDb() {
    gauge("commitlane.health", "health of RocksDB's background work: 0 OK, 1 DEGRADED (recovers on its own),"
        + " 2 FAILED (needs a reopen)", Tags.empty(), s -> s.storage().health().state().ordinal());
    bytes("commitlane.rocksdb.compaction.pending", "bytes compaction must rewrite, as RocksDB estimates",
        s -> s.rocksDb().pendingCompactionBytes());
    bytes("commitlane.rocksdb.memtable.size", "bytes held by memtables", s -> s.rocksDb().memtableBytes());
    bytes("commitlane.rocksdb.sst.live.size", "bytes of live SST files", s -> s.rocksDb().liveSstBytes());
    bytes("commitlane.rocksdb.block.cache.usage", "bytes held by the block cache", s -> s.rocksDb().blockCacheBytes());
    gauge("commitlane.rocksdb.block.cache.hit.ratio", "block-cache hits over lookups since open (NaN without RocksDB"
        + " statistics)", Tags.empty(), s -> s.rocksDb().blockCacheHitRate());
    FunctionCounter.builder("commitlane.rocksdb.write.stall", db, d -> Math.max(0, sample().rocksDb().stallMicros()) / 1e6)
        .tags(tags).baseUnit("seconds").description("time writes were delayed or stopped by write stalls")
        .register(registry);
    Gauge.builder("commitlane.rocksdb.write.delayed.rate", db, d -> sample().rocksDb().delayedWriteRate()).tags(tags)
        .baseUnit("bytes.per.second").description("the rate RocksDB holds writes to while it slows them, 0 when it does not")
        .register(registry);
    gauge("commitlane.rocksdb.write.stopped", "1 while RocksDB stops writes (a write stall), else 0", Tags.empty(),
        s -> s.rocksDb().writeStopped() ? 1 : 0);
    gauge("commitlane.rocksdb.compactions.running", "compactions running now", Tags.empty(),
        s -> s.rocksDb().runningCompactions());
    gauge("commitlane.rocksdb.flushes.running", "flushes running now", Tags.empty(), s -> s.rocksDb().runningFlushes());
    gauge("commitlane.rocksdb.level0.files", "SST files in level 0 (RocksDB slows, then stops, writes past its triggers)",
        Tags.empty(), s -> s.rocksDb().level0Files());
    bytes("commitlane.rocksdb.table.readers.size", "bytes of the open SST files' index and filter blocks held outside"
        + " the block cache", s -> s.rocksDb().tableReadersBytes());
  }

  private void bytes(String name, String description, ToDoubleFunction<PipelineStats> value) {
    Gauge.builder(name, db, d -> value.applyAsDouble(sample())).tags(tags).description(description).baseUnit("bytes")
        .register(registry);
  }

  private static double validationBytes(StorageStats s) {
    return s.validationBytes();
  }

  private void gauge(String name, String description, Tags more, ToDoubleFunction<PipelineStats> value) {
    Gauge.builder(name, db, d -> value.applyAsDouble(sample())).tags(tags.and(more)).description(description)
        .register(registry);
  }

  // Every meter's state object is the database, and its function holds this binder: Micrometer
  // keeps only a weak reference to the state object, so with the binder as state a caller that
  // kept no reference to it would see its counters stop at their last value after a GC.

  private void counter(String name, String description, Tags more, ToDoubleFunction<PipelineStats> value) {
    FunctionCounter.builder(name, db, d -> value.applyAsDouble(sample())).tags(tags.and(more))
        .description(description).register(registry);
  }

  private void timer(String name, String description, Cumulative c) {
    FunctionTimer.builder(name, db, d -> cumulative(c).count, d -> cumulative(c).totalNanos, TimeUnit.NANOSECONDS)
        .tags(tags).description(description).register(registry);
    for (double phi : PERCENTILES) {
      TimeGauge.builder(name + ".percentile", db, TimeUnit.NANOSECONDS, d -> cumulative(c).percentile(phi))
          .tags(tags.and(Tag.of("phi", phi == 1.0 ? "1" : Double.toString(phi))))
          .description(description + ", in the last sampling interval").register(registry);
    }
  }

  /** Meters of logs not seen before (a log is created at its first commit). */
  private synchronized void bindLogs(PipelineStats s) {
    if (registry == null) {
      return;
    }
    Map<String, Long> replayed = new java.util.HashMap<>();
    db.replayStatsAtOpen().forEach((log, stats) -> replayed.put(log, stats.transactions()));
    for (String log : s.logs().keySet()) {
      if (!logsBound.add(log)) {
        continue;
      }
      Tags t = tags.and("log", log);
      logGauge("commitlane.txlog.segments", "segment files", t, log, LogStats::segmentFiles);
      Gauge.builder("commitlane.txlog.bytes", db, d -> logValue(this, log, LogStats::totalBytes)).tags(t)
          .baseUnit("bytes").description("bytes in segment files").register(registry);
      logGauge("commitlane.txlog.unflushed.segments", "segments kept because they hold records RocksDB has not flushed",
          t, log, LogStats::filesKeptUnflushed);
      logGauge("commitlane.txlog.uncommitted", "records appended and not yet finished", t, log,
          LogStats::uncommittedCount);
      FunctionCounter.builder("commitlane.txlog.records", db, d -> logValue(this, log, LogStats::recordsWritten)).tags(t)
          .description("records appended since open").register(registry);
      FunctionCounter.builder("commitlane.txlog.fsyncs", db, d -> logValue(this, log, LogStats::fsyncs)).tags(t)
          .description("fsyncs of the log since open").register(registry);
      long atOpen = replayed.getOrDefault(log, 0L);
      FunctionCounter.builder("commitlane.txlog.replayed", db, d -> atOpen).tags(t)
          .description("transactions replayed from the log when the database opened").register(registry);
    }
  }

  private void logGauge(String name, String description, Tags t, String log, ToDoubleFunction<LogStats> value) {
    Gauge.builder(name, db, d -> logValue(this, log, value)).tags(t).description(description).register(registry);
  }

  private static double logValue(CommitlaneMetrics m, String log, ToDoubleFunction<LogStats> value) {
    LogStats s = m.sample().logs().get(log);
    return s == null ? Double.NaN : value.applyAsDouble(s);
  }

  private synchronized Cumulative cumulative(Cumulative c) {
    sample();
    return c;
  }

  /** The latest snapshot, taken anew when older than the sample interval. */
  private PipelineStats sample() {
    boolean fresh;
    PipelineStats s;
    synchronized (this) {
      long now = System.nanoTime();
      fresh = last == null || now - lastAt >= sampleNanos;
      if (fresh) {
        last = db.stats();
        lastAt = now;
        queueWait.add(last.queueWait());
        execution.add(last.execution());
      }
      s = last;
    }
    if (fresh && !logsBound.containsAll(s.logs().keySet())) {
      bindLogs(s);
    }
    return s;
  }

  /** A latency histogram's running totals across snapshots, and its last interval. */
  private static final class Cumulative {
    long count;
    double totalNanos;
    Histogram lastInterval;

    void add(Histogram interval) {
      count += interval.getTotalCount();
      totalNanos += interval.getMean() * interval.getTotalCount();
      lastInterval = interval;
    }

    double percentile(double phi) {
      Histogram h = lastInterval;
      if (h == null || h.getTotalCount() == 0) {
        return 0;
      }
      return phi >= 1.0 ? h.getMaxValue() : h.getValueAtPercentile(phi * 100);
    }
  }

  private static String nameOf(Path path) {
    Path file = path.toAbsolutePath().normalize().getFileName();
    return file == null ? path.toString() : file.toString();
  }
}
