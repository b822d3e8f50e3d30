/**
 * {@code ./commitlane ingest}: {@link io.commitlane.bench.ingest.IngestBench}, bulk ingestion through the stream stages,
 * change-feed reads and admission fairness, one {@link io.commitlane.bench.ingest.IngestRow} per table row.
 */
package io.commitlane.bench.ingest;
