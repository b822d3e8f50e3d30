package io.commitlane.storage.internal.commit;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One commit on its way through the commit path: a transaction's buffered writes and tracked
 * reads, or a non-transactional batch. Hooks and stage listeners see it; the committing thread
 * owns it, so it is not thread-safe.
 *
 * <p>INTERNAL API: a seam for commitlane's own modules, not for applications.
 */
@InternalApi
public final class PendingCommit {
  /** Visits each buffered write; {@code value} is null for a removal. */
  @FunctionalInterface
  public interface WriteVisitor {
    void visit(Store store, byte[] key, byte[] value);
  }

  private final long transactionId;
  private final Object tag;
  private final WriteBuffer writes;
  private final ReadSet reads;
  private final long baseline;
  private final boolean transactional;
  private final String logName;
  private final List<byte[]> logEntries;
  /** commitlane's own column family, where hooks may add records to the commit's write. */
  private final Store internal;
  private int internalWrites;
  /** What the transaction-log hook attached: where the commit's record went; null when it logged nothing. */
  private LogRecordRef logRecord;
  private long version;
  /** The intervals the transaction's tracked scans covered, or null when it scanned none. */
  private ScannedRanges scans;

  public PendingCommit(long transactionId, Object tag, WriteBuffer writes, ReadSet reads, long baseline, boolean transactional) {
    this(transactionId, tag, writes, reads, baseline, transactional, null, List.of(), null);
  }

  public PendingCommit(long transactionId, Object tag, WriteBuffer writes, ReadSet reads, long baseline, boolean transactional,
      String logName, List<byte[]> logEntries, Store internal) {
    this.transactionId = transactionId;
    this.tag = tag;
    this.writes = writes;
    this.reads = reads;
    this.baseline = baseline;
    this.transactional = transactional;
    this.logName = logName;
    this.logEntries = logEntries;
    this.internal = internal;
  }

  /** The transaction log named with {@link Transaction#useLog}, or null when it logs nothing. */
  public String logName() {
    return logName;
  }

  /** The entries added with {@link Transaction#addLogEntry}, in order; unmodifiable view. */
  public List<byte[]> logEntries() {
    return Collections.unmodifiableList(logEntries);
  }

  /** The transaction's id, unique per process; 0 for a non-transactional write. */
  public long transactionId() {
    return transactionId;
  }

  /** The tag the caller gave the transaction (for stage listeners to pick commits), or null. */
  public Object tag() {
    return tag;
  }

  public boolean isTransactional() {
    return transactional;
  }

  /** The transaction's writes (records hooks added with {@link #addInternalWrite} not counted). */
  public int writeCount() {
    return writes.size() - internalWrites;
  }

  /** Visits the transaction's writes in order (not the records hooks added). */
  public void forEachWrite(WriteVisitor visitor) {
    Objects.requireNonNull(visitor, "visitor");
    for (int i = 0; i < writes.size(); i++) {
      if (!writes.store(i).isInternal()) {
        visitor.visit(writes.store(i), writes.key(i), writes.value(i));
      }
    }
  }

  /**
   * For commit hooks, in {@link CommitHook#beforeWrite}: adds a record to commitlane's own column
   * family to this commit's write, so RocksDB holds it exactly when it holds the commit's data
   * (the transaction-log wiring marks which logged commits RocksDB already holds this way). Keys
   * must be unique to this commit: they take no lock and are not validated.
   */
  public void addInternalWrite(byte[] key, byte[] value) {
    if (internal == null) {
      throw new IllegalStateException(this + " takes no internal records (not a transaction)");
    }
    writes.put(internal, Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    internalWrites++;
  }

  /** Where the commit's transaction-log record went, as the log's hook attached it; null until then, or if it logs nothing. */
  public LogRecordRef logRecord() {
    return logRecord;
  }

  /** For the transaction-log hook, in {@link CommitHook#beforeWrite}: the commit's record went to {@code record}. */
  public void attach(LogRecordRef record) {
    this.logRecord = record;
  }

  /** The commit-clock value stamped on the written buckets and keys; 0 until {@link CommitStage#WRITTEN}. */
  public long version() {
    return version;
  }

  void version(long v) {
    this.version = v;
  }

  long baseline() {
    return baseline;
  }

  public WriteBuffer writes() {
    return writes;
  }

  /** The keys read through {@link Transaction#get}, or null when none. */
  ReadSet reads() {
    return reads;
  }

  public ScannedRanges scans() {
    return scans;
  }

  public PendingCommit scans(ScannedRanges ranges) {
    this.scans = ranges;
    return this;
  }

  @Override
  public String toString() {
    return (transactional ? "transaction " + transactionId : "write")
        + (tag == null ? "" : " [" + tag + "]") + " (" + writes.size() + " writes)";
  }
}
