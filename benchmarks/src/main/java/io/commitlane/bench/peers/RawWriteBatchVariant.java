package io.commitlane.bench.peers;

import io.commitlane.bench.harness.CommitVariant;
import java.nio.file.Path;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/** The ceiling: a plain {@code db.write(WriteBatch)} with no validation at all, WAL off. */
public final class RawWriteBatchVariant implements CommitVariant {
  private final boolean wal;
  private final boolean readFirst;

  /** WAL off, as every table measures unless it says otherwise. */
  public RawWriteBatchVariant() {
    this(false);
  }

  /** With {@code wal}, RocksDB's write-ahead log is on (not synced), as for commitlane's {@code wal = on}. */
  public RawWriteBatchVariant(boolean wal) {
    this(wal, false);
  }

  /** With {@code readFirst}, each commit reads its keys ({@code db.get}, nothing validated) before it writes. */
  public RawWriteBatchVariant(boolean wal, boolean readFirst) {
    this.wal = wal;
    this.readFirst = readFirst;
  }

  @Override
  public String name() {
    return "raw db.write(WriteBatch)";
  }

  @Override
  public Session open(Path dir) throws RocksDBException {
    Options options = new Options().setCreateIfMissing(true);
    RocksDB db = RocksDB.open(options, dir.toString());
    WriteOptions wo = new WriteOptions().setDisableWAL(!wal);
    return new Session() {
      @Override
      public Worker worker() {
        WriteBatch batch = new WriteBatch();
        return new Worker() {
          @Override
          public boolean commit(byte[][] keys, byte[] value) throws RocksDBException {
            batch.clear();
            if (readFirst) {
              for (byte[] k : keys) {
                db.get(k);
              }
            }
            for (byte[] k : keys) {
              batch.put(k, value);
            }
            db.write(wo, batch);
            return true;
          }

          @Override
          public void close() {
            batch.close();
          }
        };
      }

      @Override
      public void close() {
        db.close();
        wo.close();
        options.close();
      }
    };
  }
}
