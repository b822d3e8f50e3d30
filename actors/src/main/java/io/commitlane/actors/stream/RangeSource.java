package io.commitlane.actors.stream;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.internal.protocol.RangePages;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.ActorAttributes;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The entries of a range as a stream, read a page at a time when downstream asks for more.
 *
 * <p><b>Memory and snapshots.</b> A page is at most {@code pageSize} entries (and at most {@value
 * #MAX_PAGE_BYTES} bytes of keys and values); the source holds at most two pages (one being read,
 * one being handed on), and a RocksDB view only
 * while it reads that page, never while downstream is slow: a consumer that takes an hour holds
 * nothing back in the database. Each page is consistent on its own; the stream as a whole is not
 * one snapshot (an entry written behind the last key read shows up later, one written before it
 * does not). For one consistent view, read the range in a transaction ({@code Transaction.scan}).
 *
 * <p><b>Failures.</b> The source fails with {@link io.commitlane.storage.DatabaseClosedException}
 * once the database is closed, and {@link io.commitlane.storage.StoreDroppedException} when its
 * store is dropped.
 *
 * <p><b>Threads.</b> Pages are read on Pekko's blocking-I/O dispatcher ({@code
 * pekko.stream.materializer.blocking-io-dispatcher}), in an island of their own, and handed on a
 * whole page at a time; never on the caller's thread or the default dispatcher.
 */
public final class RangeSource {
  /** The byte bound of one page's keys and values. */
  public static final long MAX_PAGE_BYTES = 4L << 20;

  private RangeSource() {}

  /** The entries of {@code range} in its order, read {@code pageSize} (1..100,000) at a time. */
  public static Source<KeyValue, NotUsed> of(CommitlaneDatabase db, KeyRange range, int pageSize) {
    Objects.requireNonNull(db, "db");
    Objects.requireNonNull(range, "range");
    if (pageSize < 1 || pageSize > 100_000) {
      throw new IllegalArgumentException("pageSize must be in 1..100000, was " + pageSize);
    }
    // Pages, not entries, cross the boundary to the blocking-I/O dispatcher: one hand-off per page.
    // An input buffer of one page there keeps at most the page being read and the one being taken apart.
    return Source.unfold(Optional.of(range), (Optional<KeyRange> rest) -> rest.map(r -> {
          RangePages.Read page = RangePages.read(db.storage(), r, pageSize, MAX_PAGE_BYTES);
          return Pair.create(Optional.ofNullable(page.rest()), page.entries());
        }))
        .async(ActorAttributes.IODispatcher().dispatcher(), 1)
        .mapConcat((List<KeyValue> entries) -> entries);
  }
}
