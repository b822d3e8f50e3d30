package io.commitlane.actors.projection.internal;

import io.commitlane.annotation.InternalApi;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * INTERNAL API. A projection's cursor over its log, from a position on, in position order. Used by
 * one thread at a time.
 */
@InternalApi
public interface RecordReader<R> extends AutoCloseable {
  /** The next records, at most {@code max}; empty when there is none yet. May block briefly (a file or RocksDB read). */
  List<R> poll(int max);

  /** Completes when a record the last {@link #poll} could not return may be there; poll again then. */
  CompletionStage<Void> whenMore();

  @Override
  void close();
}
