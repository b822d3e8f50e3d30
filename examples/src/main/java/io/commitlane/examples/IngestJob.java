package io.commitlane.examples;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.actors.stream.IngestTotals;
import io.commitlane.storage.KeyValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Source;

/**
 * A stream ingestion job: lines of {@code key,value} text are parsed and committed in batches,
 * with backpressure from the database (a full commit queue slows the source, nothing is
 * buffered without bound). It opens the database with the {@link Commitlane} extension and
 * closes its handle when the stream is done.
 */
public final class IngestJob {
  private IngestJob() {}

  /** Ingests {@code lines} into the database at {@code path}; completes with what was committed. */
  public static CompletionStage<IngestTotals> run(ActorSystem<?> system, Path path, Source<String, ?> lines) {
    return Commitlane.get(system).openAsync(path).thenCompose(db -> lines
        .filter(line -> !line.isBlank() && !line.startsWith("#"))
        .map(IngestJob::parse)
        .runWith(Ingest.sink(db, IngestSettings.defaults().withMaxRecords(500)), system)
        .whenComplete((totals, err) -> db.closeAsync()));
  }

  static KeyValue parse(String line) {
    int comma = line.indexOf(',');
    if (comma < 1) {
      throw new IllegalArgumentException("not a key,value line: " + line);
    }
    return new KeyValue(line.substring(0, comma).trim().getBytes(StandardCharsets.UTF_8),
        line.substring(comma + 1).trim().getBytes(StandardCharsets.UTF_8));
  }

  /** Reads {@code key,value} lines from standard input into the database at the given path. */
  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: IngestJob <database-directory>  (reads key,value lines from standard input)");
      System.exit(2);
    }
    ActorSystem<Void> system = ActorSystem.create(org.apache.pekko.actor.typed.javadsl.Behaviors.empty(), "ingest-job");
    java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
    try {
      IngestTotals totals = run(system, Path.of(args[0]), Source.fromIterator(() -> in.lines().iterator()))
          .toCompletableFuture().get();
      System.out.println(totals);
    } finally {
      system.terminate();
    }
  }

}
