package io.commitlane.bench.contention;

/**
 * A {@code bench} scenario's shape once its defaults are filled in: databases, async and
 * commitSync workers (per database), keys per commit and the key space they are drawn from.
 */
record BenchShape(int databases, int async, int sync, int keys, int keySpace) {}
