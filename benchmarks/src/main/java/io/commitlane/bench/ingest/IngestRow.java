package io.commitlane.bench.ingest;

import java.nio.file.Path;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** One ingestion row of the ingest bench: writes records {@code 0..n-1} of {@link IngestRecords} into a fresh database at {@code path}. */
interface IngestRow {
  IngestSample ingest(int n, Path path) throws Exception;

  /** A stream's result; a row that takes half an hour is stuck. */
  static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(30, TimeUnit.MINUTES);
  }

  /** Fails the row when it did not write what it was asked to. */
  static void check(boolean ok, String message) {
    if (!ok) {
      throw new IllegalStateException(message);
    }
  }
}
