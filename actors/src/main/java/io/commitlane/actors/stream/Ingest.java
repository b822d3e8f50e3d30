package io.commitlane.actors.stream;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.stream.internal.IngestTotalsSink;
import io.commitlane.actors.stream.internal.RecordBatcher;
import io.commitlane.actors.stream.internal.WriteCommitter;
import io.commitlane.storage.KeyValue;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * Bulk ingestion: group records into transactions by count, bytes and (optionally) time, commit
 * them on the database's executors, and report totals.
 *
 * <pre>{@code
 * CompletionStage<IngestTotals> done = Source.from(events)
 *     .map(e -> new KeyValue(e.key(), e.payload()))
 *     .runWith(Ingest.sink(db, IngestSettings.defaults()), system);
 * }</pre>
 *
 * <p>Batches adapt to the database: while it keeps up each batch is committed as soon as the
 * committer has room (no added delay); while commits are in flight records accumulate, up to
 * {@link IngestSettings#maxRecords()} / {@link IngestSettings#maxBytes()}, and then upstream is
 * backpressured. Batches are committed with {@link CommitFlow}'s stage, in order, so a full
 * commit queue backpressures too, and conflicts are retried. Each batch's transaction is tagged
 * with its {@link IngestBatch}.
 *
 * <p><b>Threads.</b> Batching, {@link RecordWriter} calls and the totals run on the stream's
 * dispatcher; commits on the commit executors. The totals future completes on the stream's
 * dispatcher.
 */
public final class Ingest {
  private Ingest() {}

  /** Ingest {@link KeyValue}s into the default store. */
  public static Sink<KeyValue, CompletionStage<IngestTotals>> sink(CommitlaneDatabase db, IngestSettings settings) {
    return sink(db, settings, RecordWriter.keyValues());
  }

  /**
   * Commit the records and complete with the totals when the stream completes. If a batch fails
   * for good in {@link FailureMode#FAIL_STREAM}, or the stream fails, the stage fails with {@link
   * IngestFailedException}, whose totals say what was committed (batches in flight finish first).
   */
  public static <T> Sink<T, CompletionStage<IngestTotals>> sink(CommitlaneDatabase db, IngestSettings settings, RecordWriter<T> writer) {
    return flow(db, settings, writer).toMat(Sink.fromGraph(new IngestTotalsSink<T>()), Keep.right());
  }

  /**
   * Commit the records and emit one outcome per batch, in batch order; the outcome's correlation
   * is the {@link IngestBatch} (which records, how many bytes).
   */
  public static <T> Flow<T, WriteOutcome<IngestBatch<T>>, NotUsed> flow(CommitlaneDatabase db, IngestSettings settings, RecordWriter<T> writer) {
    Objects.requireNonNull(db, "db");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(writer, "writer");
    return Flow.<T>create()
        .via(new RecordBatcher<>(settings.maxRecords(), settings.maxBytes(), settings.linger(), writer))
        .map(batch -> WriteRequest.<IngestBatch<T>>of(batch, txn -> {
          for (T record : batch.records()) {
            writer.write(txn, record);
          }
        }, batch.bytes()).withTag(batch))
        .via(new WriteCommitter<>(db, settings.commitFlowSettings(), true));
  }
}
