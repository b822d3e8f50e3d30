package io.commitlane.actors.stream;

import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.ToLongFunction;

/**
 * How {@link Ingest} turns records of type {@code T} into writes, and how much each weighs. Both
 * methods run on the stream's dispatcher; {@link #write} may run more than once for a record (a
 * batch is rebuilt on a fresh transaction when its commit is retried), so it should only write.
 */
public interface RecordWriter<T> {
  /** Add the record's writes (and log entries, if it logs) to the batch's transaction. */
  void write(Transaction txn, T record);

  /** The record's weight in bytes, for {@link IngestSettings#maxBytes()} and the totals; 0 or more. */
  long bytes(T record);

  static <T> RecordWriter<T> of(BiConsumer<Transaction, T> write, ToLongFunction<T> bytes) {
    Objects.requireNonNull(write, "write");
    Objects.requireNonNull(bytes, "bytes");
    return new RecordWriter<>() {
      @Override
      public void write(Transaction txn, T record) {
        write.accept(txn, record);
      }

      @Override
      public long bytes(T record) {
        return bytes.applyAsLong(record);
      }
    };
  }

  /** Puts each {@link KeyValue} into the default store. */
  static RecordWriter<KeyValue> keyValues() {
    return of((txn, kv) -> txn.put(kv.key(), valueOf(kv)), KeyValue::bytes);
  }

  /** Puts each {@link KeyValue} into {@code store}. */
  static RecordWriter<KeyValue> keyValues(Store store) {
    Objects.requireNonNull(store, "store");
    return of((txn, kv) -> txn.put(store, kv.key(), valueOf(kv)), KeyValue::bytes);
  }

  /** The value to put; a keys-only scan's entry has none, and writing it would delete nothing and put nothing. */
  private static byte[] valueOf(KeyValue kv) {
    if (kv.value() == null) {
      throw new IllegalArgumentException("cannot ingest " + kv + ": it has no value (an entry of a keys-only scan)");
    }
    return kv.value();
  }
}
