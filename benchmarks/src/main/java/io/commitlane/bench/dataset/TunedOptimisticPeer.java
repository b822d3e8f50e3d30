package io.commitlane.bench.dataset;

import io.commitlane.bench.harness.CommitVariant;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.peers.RawOptimisticVariant;
import io.commitlane.storage.RocksDbTuning;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.OptimisticTransactionDB;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * The raw peer on a database commitlane wrote: rocksdbjni's {@code OptimisticTransactionDB} opened
 * on the same directory (every store) with commitlane's RocksDB options ({@link
 * CommitlaneRocksOptions}), WAL off, committing to the default store from plain threads as
 * {@link RawOptimisticVariant} does. Where that peer measures RocksDB's defaults on a fresh
 * database, this one measures how commitlane commits against RocksDB's own transactions on the
 * same data, tuned the same way.
 */
final class TunedOptimisticPeer implements CommitVariant {
  private final RocksDbTuning tuning;

  TunedOptimisticPeer(RocksDbTuning tuning) {
    this.tuning = tuning;
  }

  @Override
  public String name() {
    return Variant.Kind.RAW_OPTIMISTIC.label;
  }

  @Override
  public Opened open(Path dir) throws Exception {
    CommitlaneRocksOptions options = new CommitlaneRocksOptions(tuning);
    try {
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      OptimisticTransactionDB db = OptimisticTransactionDB.open(options.dbOptions(), dir.toString(), options.descriptors(dir), handles);
      return new Opened(db, handles, options);
    } catch (RocksDBException | RuntimeException e) {
      options.close();
      throw e;
    }
  }

  /** The open peer: its workers, and what RocksDB reports about it. */
  static final class Opened implements Session {
    private final OptimisticTransactionDB db;
    private final List<ColumnFamilyHandle> stores;
    private final CommitlaneRocksOptions options;
    private final WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
    private final ReadOptions readOptions = new ReadOptions();

    private Opened(OptimisticTransactionDB db, List<ColumnFamilyHandle> stores, CommitlaneRocksOptions options) {
      this.db = db;
      this.stores = stores;
      this.options = options;
    }

    @Override
    public Worker worker() {
      return RawOptimisticVariant.worker(db, writeOptions, readOptions, false);
    }

    RocksNumbers numbers() {
      return RocksNumbers.of(db, stores, options.statistics());
    }

    @Override
    public void close() throws Exception {
      stores.forEach(ColumnFamilyHandle::close);
      db.close();
      writeOptions.close();
      readOptions.close();
      options.close();
    }
  }
}
