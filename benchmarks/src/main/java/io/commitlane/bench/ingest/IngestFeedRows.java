package io.commitlane.bench.ingest;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.actors.stream.IngestTotals;
import io.commitlane.actors.stream.RecordWriter;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import io.commitlane.storage.KeyValue;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The change-feed rows: {@code records} log entries are ingested (one per record, batches of
 * {@code feed-batch}), then read from the start by {@link ChangeFeed#current}, or by {@link
 * ChangeFeed#live} while a writer ingests as many again into the same log.
 */
final class IngestFeedRows {
  static final String NO_WRITER = "feed, no writer";
  static final String CONCURRENT_WRITER = "feed, concurrent writer";
  static final List<String> NAMES = List.of(NO_WRITER, CONCURRENT_WRITER);
  private static final String LOG = "feed";

  /** What the reader read, and what the writer wrote meanwhile (NaN without a writer). */
  record Sample(long logRecords, long entries, long bytes, long nanos, double writerEntriesPerSecond, double lagMillis) {
    double entriesPerSecond() {
      return entries / (nanos / 1e9);
    }

    double logRecordsPerSecond() {
      return logRecords / (nanos / 1e9);
    }

    double bytesPerSecond() {
      return bytes / (nanos / 1e9);
    }
  }

  private final ActorSystem<?> system;
  private final PipelineSettings settings;
  private final IngestSettings sink;
  private final IngestRecords data;
  private final int records;

  IngestFeedRows(ActorSystem<?> system, PipelineSettings settings, IngestSettings sink, IngestRecords data, int records) {
    this.system = system;
    this.settings = settings;
    this.sink = sink;
    this.data = data;
    this.records = records;
  }

  /** One measurement of row {@code name} in a fresh database at {@code path}. */
  Sample measure(String name, Path path) throws Exception {
    boolean concurrentWriter = name.equals(CONCURRENT_WRITER);
    try (CommitlaneDatabase db = Commitlane.get(system).open(path, settings)) {
      RecordWriter<KeyValue> logged = RecordWriter.of((txn, kv) -> {
        txn.put(kv.key(), kv.value());
        txn.useLog(LOG).addLogEntry(kv.value());
      }, KeyValue::bytes);
      IngestTotals setup = IngestRow.await(data.range(0, records - 1).runWith(Ingest.sink(db, sink, logged), system));
      IngestRow.check(setup.records() == records, "feed setup committed " + setup.records() + " of " + records);
      long total = concurrentWriter ? 2L * records : records;
      AtomicLong entries = new AtomicLong();
      AtomicLong bytes = new AtomicLong();
      AtomicLong logRecords = new AtomicLong();
      long start = System.nanoTime();
      CompletionStage<IngestTotals> writer = null;
      long[] writerNanos = new long[1];
      if (concurrentWriter) {
        writer = data.range(records, 2 * records - 1)
            .runWith(Ingest.sink(db, sink, logged), system)
            .thenApply(t -> {
              writerNanos[0] = System.nanoTime() - start;
              return t;
            });
      }
      Source<LogRecord, ?> feed = concurrentWriter
          ? ChangeFeed.live(db, LOG, ReadRequest.fromStart())
          : ChangeFeed.current(db, LOG, ReadRequest.fromStart());
      // Watch the feed's own end too: the database must not close under a feed still reading.
      Pair<CompletionStage<Done>, CompletionStage<Done>> run = feed
          .watchTermination(Keep.right())
          .takeWhile(r -> {
            logRecords.incrementAndGet();
            long b = 0;
            for (var e : r.entries()) {
              b += e.remaining();
            }
            bytes.addAndGet(b);
            return entries.addAndGet(r.entries().size()) < total;
          }, true)
          .toMat(Sink.ignore(), Keep.both())
          .run(system);
      IngestRow.await(run.second());
      long nanos = System.nanoTime() - start;
      IngestRow.await(run.first().exceptionally(e -> Done.getInstance()));
      double writerRate = Double.NaN;
      double lag = Double.NaN;
      if (writer != null) {
        IngestTotals w = IngestRow.await(writer);
        IngestRow.check(w.records() == records, "the concurrent writer committed " + w.records() + " of " + records);
        writerRate = records / (writerNanos[0] / 1e9);
        lag = Math.max(0, nanos - writerNanos[0]) / 1e6;
      }
      IngestRow.check(entries.get() == total, "the feed read " + entries.get() + " of " + total + " entries");
      return new Sample(logRecords.get(), entries.get(), bytes.get(), nanos, writerRate, lag);
    }
  }

  /** The line a measurement prints. */
  static String line(int run, String name, Sample s) {
    return String.format(Locale.ROOT, "  run %d  %-28s %10s entries/s  %10s log records/s  %s/s%s", run, name,
        Units.count(s.entriesPerSecond()), Units.count(s.logRecordsPerSecond()), Units.mib(s.bytesPerSecond()),
        Double.isNaN(s.writerEntriesPerSecond()) ? "" : String.format(Locale.ROOT,
            "  (writer %s entries/s; the feed read its last entry %.0f ms after the writer's last commit)",
            Units.count(s.writerEntriesPerSecond()), s.lagMillis()));
  }

  static String table(Map<String, List<Sample>> feed) {
    MarkdownTable t = MarkdownTable.of("change feed", "entries/s median [range]", "log records/s", "MiB/s", "writer entries/s",
        "feed done after writer, ms");
    for (var e : feed.entrySet()) {
      List<Sample> ss = e.getValue();
      double writer = Spread.of(ss.stream().map(Sample::writerEntriesPerSecond).filter(d -> !Double.isNaN(d)).toList()).median();
      t.row(e.getKey(), Spread.of(ss.stream().map(Sample::entriesPerSecond).toList()).format(),
          Units.count(Spread.of(ss.stream().map(Sample::logRecordsPerSecond).toList()).median()),
          Units.mib(Spread.of(ss.stream().map(Sample::bytesPerSecond).toList()).median()).replace(" MiB", ""),
          Units.count(writer),
          Double.isNaN(writer) ? "-" : String.format(Locale.ROOT, "%.0f",
              Spread.of(ss.stream().map(Sample::lagMillis).toList()).median()));
    }
    return t.toString();
  }
}
