package io.commitlane.actors;

import io.commitlane.actors.internal.log.ReplayMarkers;
import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.LogView;
import io.commitlane.txlog.ReadRequest;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * A read view of a database lined up with one of its transaction logs, for rebuilding a
 * projection: read what you need through {@link #view()} (one snapshot: ranges, point reads),
 * then follow {@link #changesAfter()}, the log's committed records that the view does not hold,
 * in log order. Together they give every committed change exactly once: none is missing between
 * the view and the feed, and none the view holds comes again.
 *
 * <pre>{@code
 * Source<LogRecord, NotUsed> changes;
 * try (FeedSnapshot start = FeedSnapshot.of(db, "orders")) {
 *   try (Cursor c = start.view().scan(KeyRange.prefix(bytes("order/")))) {
 *     c.forEachRemaining(projection::put);              // the state the view holds
 *   }
 *   changes = start.changesAfter();                     // valid after close: it holds no snapshot
 * }
 * changes.runWith(Sink.foreach(projection::apply), system);
 * }</pre>
 *
 * <p><b>Why it is exact.</b> Commits finish out of log order, so no single position splits the
 * log into "in the view" and "after it". The view is taken after reading the log's committed
 * watermark {@code W}: every record below {@code W} is in the view (or aborted). Records at or
 * above {@code W} may or may not be: each logged commit writes a marker with its log position in
 * the same RocksDB write as its data, so the view's own markers say exactly which of them it
 * holds, and the feed from {@code W} leaves those out.
 *
 * <p>Needs the log's replay markers ({@code commitlane.replay = on}, the default). Closing the
 * snapshot releases the view; {@link #changesAfter()} stays valid.
 */
public final class FeedSnapshot implements AutoCloseable {
  private final CommitlaneDatabase db;
  private final String log;
  private final Transaction view;
  private final long from;
  /** Positions at or above {@link #from} the view holds, sorted. */
  private final long[] held;

  private FeedSnapshot(CommitlaneDatabase db, String log, Transaction view, long from, long[] held) {
    this.db = db;
    this.log = log;
    this.view = view;
    this.from = from;
    this.held = held;
  }

  /**
   * Reads the committed watermark of {@code log}, then takes the view: in that order. Throws
   * {@link UnknownLogException} for a log the database does not have (creating none).
   */
  public static FeedSnapshot of(CommitlaneDatabase db, String log) {
    Objects.requireNonNull(db, "db");
    LogView logView = db.transactionLog(Objects.requireNonNull(log, "log"));
    if (!db.settings().replay()) {
      throw new IllegalStateException("a feed snapshot needs the log's replay markers: this database runs with "
          + "commitlane.replay = off");
    }
    long watermark = logView.committedWatermark();
    Transaction view = db.storage().begin();
    try {
      List<KeyValue> markers = view.internalRecordsUntracked(ReplayMarkers.key(log, watermark),
          ReplayMarkers.key(log, Long.MAX_VALUE)); // takes the view's snapshot
      long[] held = new long[markers.size()];
      for (int i = 0; i < held.length; i++) {
        held[i] = positionOf(markers.get(i).key());
      }
      return new FeedSnapshot(db, log, view, watermark, held);
    } catch (RuntimeException e) {
      view.close();
      throw e;
    }
  }

  /**
   * The view: a transaction whose snapshot is the one the feed is lined up with. Read it (tracked
   * or not); it is never committed by {@link #close()}.
   */
  public Transaction view() {
    return view;
  }

  /** The log position the feed starts from: every record below it is in the view. */
  public long feedStart() {
    return from;
  }

  /** Whether the view holds the record at {@code position} of the log. */
  public boolean holds(long position) {
    return position < from || Arrays.binarySearch(held, position) >= 0;
  }

  /** The log's committed records that the view does not hold, in log order, live (until cancelled). */
  public Source<LogRecord, NotUsed> changesAfter() {
    long[] skip = held;
    long start = from;
    return ChangeFeed.live(db, log, ReadRequest.fromPosition(start))
        .filter(r -> Arrays.binarySearch(skip, r.position()) < 0);
  }

  /** A marker key ends with its position, 8 bytes big-endian ({@link ReplayMarkers#key}). */
  private static long positionOf(byte[] markerKey) {
    long p = 0;
    for (int i = markerKey.length - 8; i < markerKey.length; i++) {
      p = (p << 8) | (markerKey[i] & 0xFF);
    }
    return p;
  }

  /** Ends the view (nothing is committed). */
  @Override
  public void close() {
    view.close();
  }
}
