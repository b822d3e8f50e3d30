package io.commitlane.bench.scale;

import io.commitlane.bench.dataset.DatasetShape;
import io.commitlane.bench.harness.Measurement;
import io.commitlane.bench.harness.Variant;

/**
 * One leg of {@code scale}: one variant on a fresh copy of one dataset for one window.
 *
 * @param cpuNanosPerCommit process CPU over the window per commit (RocksDB's background work included)
 * @param memory what the open database held as the window closed
 */
record ScaleSample(DatasetShape data, int round, Variant variant, Measurement commits, double cpuNanosPerCommit, DatabaseMemory.Reading memory) {}
