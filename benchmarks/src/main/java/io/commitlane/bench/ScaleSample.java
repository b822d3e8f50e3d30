package io.commitlane.bench;

/**
 * One leg of {@code scale}: one variant on a fresh copy of one dataset for one window.
 *
 * @param cpuNanosPerCommit process CPU over the window per commit (RocksDB's background work included)
 * @param memory what the open database held as the window closed
 */
record ScaleSample(DatasetShape data, int round, Variant variant, Measurement commits, double cpuNanosPerCommit, DatabaseMemory.Reading memory) {}
