/**
 * Bulk-loaded datasets shared by {@code scale} and {@code strain}: {@link io.commitlane.bench.dataset.BulkDataset} builds a
 * database of a {@link io.commitlane.bench.dataset.DatasetShape} once and clones it; {@link io.commitlane.bench.dataset.LegDatabase}
 * opens one leg's copy for commitlane or for the tuned raw peer.
 */
package io.commitlane.bench.dataset;
