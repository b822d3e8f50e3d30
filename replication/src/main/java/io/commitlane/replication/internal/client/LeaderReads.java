package io.commitlane.replication.internal.client;

import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * Reads through the group's leader, for a client that holds no replica. Each read (and each page
 * of a scan) comes from its own snapshot on the leader, after its read index; the transaction's
 * position is the oldest of them. Reads at different positions may not agree with each other,
 * but then a commit in between wrote something read after the oldest position, so the commit
 * conflicts: a transaction that commits saw one consistent state.
 */
public final class LeaderReads implements SnapshotReads {
  private final Function<byte[], byte[]> query;
  private long oldest = Long.MAX_VALUE;

  /** {@code query} sends a read to the leader and waits for its answer. */
  public LeaderReads(Function<byte[], byte[]> query) {
    this.query = query;
  }

  @Override
  public byte[] get(String store, byte[] key) {
    ReadQuery.Answer a = ReadQuery.readGet(query.apply(ReadQuery.get(store, key)));
    saw(a.appliedIndex());
    return a.value();
  }

  @Override
  public List<KeyValue> scan(String store, KeyRange range) {
    byte[] from = range.lowerBound() == null || range.isLowerInclusive() ? range.lowerBound()
        : Arrays.copyOf(range.lowerBound(), range.lowerBound().length + 1);
    byte[] to = range.upperBound() == null || !range.isUpperInclusive() ? range.upperBound()
        : Arrays.copyOf(range.upperBound(), range.upperBound().length + 1);
    int wanted = range.limit() == 0 ? Integer.MAX_VALUE : range.limit();
    List<KeyValue> out = new ArrayList<>();
    while (out.size() < wanted) {
      int page = Math.min(ReadQuery.PAGE, wanted - out.size());
      ReadQuery.Answer a = ReadQuery.readScan(query.apply(
          ReadQuery.scan(store, from, to, range.isReverse(), page, range.isKeysOnly())));
      saw(a.appliedIndex());
      out.addAll(a.entries());
      if (a.entries().size() < page) {
        break;
      }
      byte[] last = a.entries().get(a.entries().size() - 1).key();
      if (range.isReverse()) {
        to = last;
      } else {
        from = Arrays.copyOf(last, last.length + 1);
      }
    }
    return out;
  }

  private void saw(long appliedIndex) {
    oldest = Math.min(oldest, appliedIndex);
  }

  @Override
  public long snapshotIndex() {
    return oldest == Long.MAX_VALUE ? 0 : oldest;
  }

  @Override
  public void close() {
    // nothing held between reads
  }
}
