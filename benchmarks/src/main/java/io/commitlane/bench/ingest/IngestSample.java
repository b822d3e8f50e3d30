package io.commitlane.bench.ingest;

/** One ingest measurement: how many records in how long, in how many transactions, and what else it cost. */
record IngestSample(long records, long nanos, long transactions, long cpuNanos, long conflicts) {
  double perSecond() {
    return records / (nanos / 1e9);
  }

  /** CPU time of the whole process (every thread, RocksDB's too) per record: what a loaded machine charges. */
  double cpuNanosPerRecord() {
    return cpuNanos / (double) records;
  }
}
