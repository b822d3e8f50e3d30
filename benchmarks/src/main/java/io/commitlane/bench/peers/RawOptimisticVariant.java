package io.commitlane.bench.peers;

import io.commitlane.bench.harness.CommitVariant;
import java.nio.file.Path;
import org.rocksdb.OptimisticTransactionDB;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.Transaction;
import org.rocksdb.WriteOptions;

/**
 * The peer: rocksdbjni's {@code OptimisticTransactionDB} from plain threads, WAL off, each worker
 * reusing its transaction object (RocksDB's fastest documented path). Validation happens inside
 * RocksDB against its 2^20 lock buckets.
 */
public final class RawOptimisticVariant implements CommitVariant {
  private final boolean wal;
  private final boolean readFirst;

  /** WAL off, as every table measures unless it says otherwise. */
  public RawOptimisticVariant() {
    this(false);
  }

  /** With {@code wal}, RocksDB's write-ahead log is on (not synced), as for commitlane's {@code wal = on}. */
  public RawOptimisticVariant(boolean wal) {
    this(wal, false);
  }

  /** With {@code readFirst}, each transaction reads every key with {@code getForUpdate} (validated at commit) before it writes. */
  public RawOptimisticVariant(boolean wal, boolean readFirst) {
    this.wal = wal;
    this.readFirst = readFirst;
  }

  @Override
  public String name() {
    return "raw OptimisticTransactionDB";
  }

  @Override
  public Session open(Path dir) throws RocksDBException {
    Options options = new Options().setCreateIfMissing(true);
    OptimisticTransactionDB db = OptimisticTransactionDB.open(options, dir.toString());
    WriteOptions wo = new WriteOptions().setDisableWAL(!wal);
    ReadOptions ro = new ReadOptions();
    return new Session() {
      @Override
      public Worker worker() {
        return RawOptimisticVariant.worker(db, wo, ro, readFirst);
      }

      @Override
      public void close() {
        db.close();
        wo.close();
        ro.close();
        options.close();
      }
    };
  }

  /**
   * One thread's committer on {@code db}'s default store: it reuses its transaction object; with
   * {@code readFirst} it reads every key with {@code getForUpdate} before writing it. A conflict
   * (Busy or TryAgain) rolls back and returns false.
   */
  public static Worker worker(OptimisticTransactionDB db, WriteOptions wo, ReadOptions ro, boolean readFirst) {
    return new Worker() {
      private Transaction txn;

      @Override
      public boolean commit(byte[][] keys, byte[] value) throws RocksDBException {
        txn = txn == null ? db.beginTransaction(wo) : db.beginTransaction(wo, txn);
        if (readFirst) {
          for (byte[] k : keys) {
            txn.getForUpdate(ro, k, true);
          }
        }
        for (byte[] k : keys) {
          txn.put(k, value);
        }
        try {
          txn.commit();
          return true;
        } catch (RocksDBException e) {
          Status s = e.getStatus();
          if (s != null && (s.getCode() == Status.Code.Busy || s.getCode() == Status.Code.TryAgain)) {
            txn.rollback();
            return false;
          }
          throw e;
        }
      }

      @Override
      public void close() {
        if (txn != null) {
          txn.close();
        }
      }
    };
  }
}
