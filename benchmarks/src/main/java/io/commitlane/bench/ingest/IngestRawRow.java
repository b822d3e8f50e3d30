package io.commitlane.bench.ingest;

import io.commitlane.bench.harness.CpuWindow;
import java.nio.file.Files;
import java.nio.file.Path;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/** The raw rocksdbjni peer: {@code db.write(WriteBatch)} of {@code batch} records at a time, WAL off. */
final class IngestRawRow implements IngestRow {
  static final String NAME = "raw db.write(WriteBatch)";

  private final int batch;
  private final IngestRecords records;

  IngestRawRow(int batch, IngestRecords records) {
    this.batch = batch;
    this.records = records;
  }

  @Override
  public IngestSample ingest(int n, Path path) throws Exception {
    Files.createDirectories(path);
    try (Options options = new Options().setCreateIfMissing(true);
        WriteOptions wo = new WriteOptions().setDisableWAL(true);
        RocksDB db = RocksDB.open(options, path.toString());
        WriteBatch wb = new WriteBatch()) {
      long cpu = CpuWindow.processCpuNanos();
      long start = System.nanoTime();
      long txns = 0;
      for (int i = 0; i < n; ) {
        wb.clear();
        int end = Math.min(n, i + batch);
        for (; i < end; i++) {
          wb.put(IngestRecords.key(i), records.value(i));
        }
        db.write(wo, wb);
        txns++;
      }
      long nanos = System.nanoTime() - start;
      return new IngestSample(n, nanos, txns, CpuWindow.processCpuNanos() - cpu, 0);
    }
  }
}
