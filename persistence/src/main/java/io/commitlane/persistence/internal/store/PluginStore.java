package io.commitlane.persistence.internal.store;

import io.commitlane.persistence.internal.query.WriteSignals;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.KeyValue;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * INTERNAL API. Everything the plugins need from a database, and nothing more: the seam a replicated database
 * implements to run the same journal, snapshot store, state store and queries.
 *
 * <ul>
 *   <li>{@link #write} is all-or-nothing and conditional (expected values, checked at commit: a persistence id's
 *       highest sequence number, a durable object's revision), so two writers of one id can never interleave.
 *   <li>Reads see every acknowledged write.
 *   <li>{@link #positions()} gives the watermark of commit positions; a write's positions are assigned by the store
 *       ({@link StoreWrite#position()}: locally claimed before the commit and published when it settles; replicated:
 *       assigned by the log as each replica applies the commit, published as entries apply).
 * </ul>
 */
@InternalApi
public interface PluginStore {
  /** The value of {@code key}, or null. Blocking: call on {@link #executor()}. */
  byte[] get(byte[] key);

  /** The values of {@code keys} (null where absent), in one batched read. Blocking: call on {@link #executor()}. */
  List<byte[]> multiGet(List<byte[]> keys);

  /**
   * Up to {@code limit} entries with keys in [from, to) ({@code to} null: unbounded), in key order or reversed.
   * Blocking: call on {@link #executor()}.
   */
  List<KeyValue> scan(byte[] from, byte[] to, boolean reverse, int limit);

  /**
   * Apply {@code write} if its expectations hold. Fails with {@link ConditionFailedException} when one does not (nothing
   * written), or with the database's error. Never blocks the caller; completes on {@link #executor()} or the
   * database's completion dispatcher.
   */
  CompletionStage<Void> write(StoreWrite write);

  Positions positions();

  /** Signals of acknowledged writes per persistence id (what live {@code eventsByPersistenceId} follows). */
  WriteSignals signals();

  /** Where blocking reads and the plugins' continuations run (the plugin dispatcher). */
  Executor executor();

  /** The largest {@link StoreWrite#bytes()} one write may carry (a transaction-log record must hold it). */
  long maxWriteBytes();

  /** How to allow larger writes, for messages: ", or ..." (empty when nothing can). */
  default String largerWrites() {
    return "";
  }

  /** Where the data lives, for messages. */
  String describe();

  /**
   * Completes (on {@link #executor()}) once reads see every write acknowledged anywhere before the call: what recovery
   * waits for before it reads, and every current query before it fixes its bound (a replicated store asks the
   * group's leader how far it committed and waits until its replica applied that far; a local store sees every
   * acknowledged write already, and its barrier is a completed stage).
   */
  default CompletionStage<Void> readBarrier() {
    return java.util.concurrent.CompletableFuture.completedFuture(null);
  }

  /** Refuse new writes, let the started ones finish, then release the database (nothing to release by default). */
  default CompletionStage<org.apache.pekko.Done> close() {
    return java.util.concurrent.CompletableFuture.completedFuture(org.apache.pekko.Done.getInstance());
  }
}
