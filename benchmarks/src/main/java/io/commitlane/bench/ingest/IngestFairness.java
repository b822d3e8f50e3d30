package io.commitlane.bench.ingest;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The fairness row: rounds of {@link AdmissionFairness} (two commit flows and plain callers sharing
 * one database with a small commit queue), each in a fresh database; per participant its commits/s
 * and its share of all commits.
 */
final class IngestFairness {
  private final ActorSystem<?> system;
  private final PipelineSettings settings;
  private final IngestRecords records;
  private final int capacity;
  private final double seconds;
  private final int inFlight;

  /** {@code settings} carry the small queue's {@code capacity}, which the header line names. */
  IngestFairness(ActorSystem<?> system, PipelineSettings settings, IngestRecords records, int capacity, double seconds, int inFlight) {
    this.system = system;
    this.settings = settings;
    this.records = records;
    this.capacity = capacity;
    this.seconds = seconds;
    this.inFlight = inFlight;
  }

  /** {@code runs} rounds, printed as they finish: per participant, commits/s of each round (keys "name") and its share (keys "name share"). */
  Map<String, List<Double>> run(int runs, Supplier<Path> cells, PrintStream out) throws Exception {
    Map<String, List<Double>> results = new LinkedHashMap<>();
    AdmissionFairness f = new AdmissionFairness(inFlight, i -> IngestRecords.key(i), records.value(0));
    out.printf(Locale.ROOT, "  fairness: 2 commit flows + plain callers, %d in flight each, 1-record transactions, commit-queue-capacity %d,"
        + " %.1f s per round%n", inFlight, capacity, seconds);
    for (int run = 0; run < runs; run++) {
      Path path = cells.get();
      try (CommitlaneDatabase db = Commitlane.get(system).open(path, settings)) {
        Map<String, Long> counts = f.run(system, db, seconds, true);
        counts.remove("_nanos");
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder line = new StringBuilder();
        for (var e : counts.entrySet()) {
          double rate = e.getValue() / seconds;
          double share = total == 0 ? 0 : e.getValue() / (double) total;
          results.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(rate);
          results.computeIfAbsent(e.getKey() + " share", k -> new ArrayList<>()).add(share);
          line.append(String.format(Locale.ROOT, "%s %s/s (%.0f%%); ", e.getKey(), Units.count(rate), share * 100));
        }
        out.printf(Locale.ROOT, "  run %d  fairness  %s refused admissions %,d%n", run + 1, line, db.stats().overloaded());
      } finally {
        ContentionRunner.deleteRecursively(path);
      }
    }
    return results;
  }

  static String table(Map<String, List<Double>> results) {
    MarkdownTable t = MarkdownTable.of("participant (shared database, small queue)", "commits/s median [range]",
        "share median [range]");
    for (var e : results.entrySet()) {
      if (e.getKey().endsWith(" share")) {
        continue;
      }
      Spread share = Spread.of(results.get(e.getKey() + " share"));
      t.row(e.getKey(), Spread.of(e.getValue()).format(), String.format(Locale.ROOT,
          "%.0f%% [%.0f%%-%.0f%%]", share.median() * 100, share.min() * 100, share.max() * 100));
    }
    return t.toString();
  }
}
