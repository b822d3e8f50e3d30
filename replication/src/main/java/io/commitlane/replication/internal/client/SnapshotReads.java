package io.commitlane.replication.internal.client;

import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.util.List;

/**
 * Where a replicated transaction's reads come from, and which log position they saw: the
 * position goes into the commit, and every replica checks that nothing the transaction read was
 * written after it.
 */
public interface SnapshotReads extends AutoCloseable {
  /** The value of {@code key} in {@code store}, or null (also when the store does not exist). */
  byte[] get(String store, byte[] key);

  /** The entries of {@code range} in {@code store}, up to the range's limit, in its direction. */
  List<KeyValue> scan(String store, KeyRange range);

  /**
   * A log position at or before every state the reads saw; a conflict is any later write to a
   * key or range read. 0 when nothing was read.
   */
  long snapshotIndex();

  @Override
  void close();
}
