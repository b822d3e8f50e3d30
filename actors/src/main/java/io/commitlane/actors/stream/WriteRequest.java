package io.commitlane.actors.stream;

import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One transaction for {@link CommitFlow} to commit: what to write, and a correlation value of the
 * caller's choosing that comes back in its {@link WriteOutcome}.
 *
 * <pre>{@code
 * WriteRequest<String> r = WriteRequest.builder("order-17")
 *     .put(key, value)
 *     .remove(oldKey)
 *     .log("orders").logEntry(event)          // a change-feed record for this transaction
 *     .build();
 *
 * // read-modify-write: the body runs again, on a fresh transaction, for every attempt
 * WriteRequest<String> inc = WriteRequest.of("inc", txn -> {
 *   long n = Codec.toLong(txn.get(counter));
 *   txn.put(counter, Codec.fromLong(n + 1));
 * });
 * }</pre>
 *
 * <p>A request is applied to a new transaction for every attempt (a conflict retry, or a commit
 * the full queue did not admit), so its body must have no side effects beyond the transaction.
 * The stage runs it on the stream's dispatcher thread. Byte arrays are not copied: do not change
 * them after handing them over. Immutable once built; safe to share.
 *
 * @param <C> the correlation value's type
 */
public final class WriteRequest<C> {
  /** Applies a request's writes to a fresh transaction; may read through it (tracked reads are validated). */
  @FunctionalInterface
  public interface Body {
    void writeTo(Transaction txn);
  }

  private final C correlation;
  private final Body body;
  private final long bytes;
  private final Object tag;

  private WriteRequest(C correlation, Body body, long bytes, Object tag) {
    this.correlation = correlation;
    this.body = body;
    this.bytes = bytes;
    this.tag = tag;
  }

  /** A builder of puts, removes and log entries. */
  public static <C> Builder<C> builder(C correlation) {
    return new Builder<>(correlation);
  }

  /** A request whose body builds the transaction (reads included); it is retried as a whole on conflict. */
  public static <C> WriteRequest<C> of(C correlation, Body body) {
    return of(correlation, body, 0);
  }

  /** {@link #of(Object, Body)} with the size the caller attributes to it (for weighing and totals). */
  public static <C> WriteRequest<C> of(C correlation, Body body, long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0: " + bytes);
    }
    return new WriteRequest<>(correlation, Objects.requireNonNull(body, "body"), bytes, null);
  }

  /** This request with a transaction tag, so stage listeners (the testkit) can pick its commits out. */
  public WriteRequest<C> withTag(Object tag) {
    return new WriteRequest<>(correlation, body, bytes, tag);
  }

  /** The caller's correlation value (may be null). */
  public C correlation() {
    return correlation;
  }

  /** Key, value and log-entry bytes of a built request; what {@link #of(Object, Body, long)} was given otherwise. */
  public long bytes() {
    return bytes;
  }

  /** The tag given to every transaction of this request, or null. */
  public Object tag() {
    return tag;
  }

  /** Apply this request to {@code txn} (one attempt). Throws what the body throws. */
  public void writeTo(Transaction txn) {
    if (tag != null) {
      txn.tag(tag);
    }
    body.writeTo(txn);
  }

  @Override
  public String toString() {
    return "WriteRequest[" + correlation + (tag == null ? "" : ", tag " + tag) + ", " + bytes + " bytes]";
  }

  /** Collects writes for {@link #builder}; not thread-safe, use once. */
  public static final class Builder<C> {
    private final C correlation;
    private final List<Store> stores = new ArrayList<>();
    private final List<byte[]> keys = new ArrayList<>();
    private final List<byte[]> values = new ArrayList<>();
    private final List<byte[]> entries = new ArrayList<>();
    private String log;
    private Object tag;
    private long bytes;

    private Builder(C correlation) {
      this.correlation = correlation;
    }

    /** Put into the default store. */
    public Builder<C> put(byte[] key, byte[] value) {
      return write(null, Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    public Builder<C> put(Store store, byte[] key, byte[] value) {
      return write(Objects.requireNonNull(store, "store"), Objects.requireNonNull(key, "key"),
          Objects.requireNonNull(value, "value"));
    }

    /** Remove from the default store. */
    public Builder<C> remove(byte[] key) {
      return write(null, Objects.requireNonNull(key, "key"), null);
    }

    public Builder<C> remove(Store store, byte[] key) {
      return write(Objects.requireNonNull(store, "store"), Objects.requireNonNull(key, "key"), null);
    }

    /** The transaction log this request's entries go to ({@link Transaction#useLog}). */
    public Builder<C> log(String name) {
      this.log = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Add an entry to the transaction's log record; name the log with {@link #log} too. */
    public Builder<C> logEntry(byte[] entry) {
      entries.add(Objects.requireNonNull(entry, "entry"));
      bytes += entry.length;
      return this;
    }

    public Builder<C> tag(Object tag) {
      this.tag = tag;
      return this;
    }

    /**
     * @throws IllegalStateException if log entries were added without naming a log
     */
    public WriteRequest<C> build() {
      if (!entries.isEmpty() && log == null) {
        throw new IllegalStateException("log entries need a log: call log(name) on the builder of " + correlation);
      }
      Store[] s = stores.toArray(new Store[0]);
      byte[][] k = keys.toArray(new byte[0][]);
      byte[][] v = values.toArray(new byte[0][]);
      byte[][] e = entries.toArray(new byte[0][]);
      String logName = log;
      Body body = txn -> {
        for (int i = 0; i < k.length; i++) {
          if (v[i] == null) {
            if (s[i] == null) {
              txn.remove(k[i]);
            } else {
              txn.remove(s[i], k[i]);
            }
          } else if (s[i] == null) {
            txn.put(k[i], v[i]);
          } else {
            txn.put(s[i], k[i], v[i]);
          }
        }
        if (logName != null) {
          txn.useLog(logName);
          for (byte[] entry : e) {
            txn.addLogEntry(entry);
          }
        }
      };
      return new WriteRequest<>(correlation, body, bytes, tag);
    }

    private Builder<C> write(Store store, byte[] key, byte[] value) {
      stores.add(store);
      keys.add(key);
      values.add(value);
      bytes += key.length + (value == null ? 0 : value.length);
      return this;
    }
  }
}
