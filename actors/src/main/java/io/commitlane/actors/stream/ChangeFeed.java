package io.commitlane.actors.stream;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.stream.internal.ChangeFeedStage;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.LogView;
import io.commitlane.txlog.ReadRequest;
import java.util.Objects;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.ActorAttributes;
import org.apache.pekko.stream.javadsl.Source;

/**
 * Sources of the committed records of a transaction log: a change feed.
 *
 * <pre>{@code
 * ChangeFeed.live(db, "orders", ReadRequest.fromStart())   // committed records, then new ones as they land
 *     .runForeach(record -> monitor(record.entries()), system);
 * }</pre>
 *
 * <p>To apply a log's records to the database exactly once, and resume after a crash right where
 * the last applied record was, use a {@link io.commitlane.actors.projection.Projection}: it stores
 * its position in the transaction that holds its writes. A consumer that stores the position of
 * the last record it handled separately handles a record again after a crash between the two.
 *
 * <p><b>What it emits.</b> Records in log order, each once, never one at or above the log's
 * committed watermark: a record appears only after its transaction's data is readable and every
 * earlier record finished; aborted records never appear. Start where a {@link ReadRequest} says
 * (a position, a timestamp, the last flushed position, the oldest retained record).
 * {@code ReadRequest.fromPosition(p).exclusive()} starts right after record {@code p}; positions
 * survive closing and reopening the database. A position in a segment purged by retention starts at the oldest retained record.
 *
 * <p><b>Backpressure.</b> Records are read from the log files only when downstream pulls: a slow
 * consumer holds no memory and never slows commits; the log is the buffer (keep its retention
 * longer than the consumer may lag).
 *
 * <p><b>Failures.</b> A source of a log the database does not have (no commit wrote to it yet)
 * fails with {@link io.commitlane.actors.UnknownLogException} when it is materialized, and creates
 * nothing. The source fails with {@link io.commitlane.txlog.LogClosedException} when
 * the database (its log) is closed, and with {@link io.commitlane.txlog.CorruptLogFrameException}
 * at a corrupt frame (resume from its {@code resumePosition()} to skip the lost record).
 *
 * <p><b>Threads.</b> Reads are blocking file reads, so the source runs on Pekko's blocking-I/O
 * dispatcher ({@code pekko.stream.materializer.blocking-io-dispatcher}) unless a {@code
 * dispatcher} attribute says otherwise. The log reader is opened when the source is
 * materialized, not when it is created. Record buffers are read-only views, valid after the
 * source moves on.
 */
public final class ChangeFeed {
  private ChangeFeed() {}

  /** Committed records from {@code from} on, then every record committed later, until cancelled. */
  public static Source<LogRecord, NotUsed> live(CommitlaneDatabase db, String logName, ReadRequest from) {
    Objects.requireNonNull(db, "db");
    Objects.requireNonNull(logName, "logName");
    return source(() -> db.transactionLog(logName), from, true);
  }

  /** {@link #live(CommitlaneDatabase, String, ReadRequest)} over a log opened directly. */
  public static Source<LogRecord, NotUsed> live(LogView log, ReadRequest from) {
    Objects.requireNonNull(log, "log");
    return source(() -> log, from, true);
  }

  /**
   * Records from {@code from} up to the committed watermark the reader reaches, then complete (or
   * when the request's end timestamp or position is passed).
   */
  public static Source<LogRecord, NotUsed> current(CommitlaneDatabase db, String logName, ReadRequest from) {
    Objects.requireNonNull(db, "db");
    Objects.requireNonNull(logName, "logName");
    return source(() -> db.transactionLog(logName), from, false);
  }

  /** {@link #current(CommitlaneDatabase, String, ReadRequest)} over a log opened directly. */
  public static Source<LogRecord, NotUsed> current(LogView log, ReadRequest from) {
    Objects.requireNonNull(log, "log");
    return source(() -> log, from, false);
  }

  private static Source<LogRecord, NotUsed> source(java.util.function.Supplier<LogView> log, ReadRequest from, boolean live) {
    Objects.requireNonNull(from, "from");
    return Source.fromGraph(new ChangeFeedStage(log, from, live))
        .addAttributes(ActorAttributes.dispatcher(ActorAttributes.IODispatcher().dispatcher()));
  }
}
