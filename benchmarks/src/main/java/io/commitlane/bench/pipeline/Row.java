package io.commitlane.bench.pipeline;

import io.commitlane.bench.peers.RawOptimisticAsyncPeer;

/**
 * What one row of the pipeline tables measures: who commits, how many commits each worker keeps
 * in flight (always 1 for a thread that commits synchronously), and whether every commit also
 * writes transaction-log entries.
 */
record Row(Committer committer, int inFlight, boolean log) {
  /** Who commits in a row. */
  enum Committer {
    THREADS("commitlane threads", true),
    /** Threads mode with merged write groups off: one RocksDB write per commit. */
    UNMERGED("commitlane threads, merging off", true),
    /** Blocking commits as a peer: {@code commitSync(txn)} as tasks on the default dispatcher, several in flight per worker. */
    LEGACY("commitlane legacy", true),
    COMMIT_SYNC("commitlane commitSync", false),
    RAW_OPTIMISTIC("raw OptimisticTransactionDB", false),
    /** The raw peer committing on a pool of commit-threads threads, workers keeping several in flight ({@link RawOptimisticAsyncPeer}). */
    RAW_OPTIMISTIC_ASYNC("raw OptimisticTransactionDB async", true),
    /** The probe's baseline: nobody commits while the dispatcher is timed. */
    IDLE("nothing (idle)", false);

    final String label;
    /** Workers keep several commits in flight: commitlane's {@code commit(txn)}, or the async raw peer. */
    final boolean async;

    Committer(String label, boolean async) {
      this.label = label;
      this.async = async;
    }
  }

  String label() {
    return committer.label + (log ? " + log" : "") + (committer.async ? ", " + inFlight + " in flight" : "");
  }

  /** "8 per worker" or "1 per thread": what the in-flight column says. */
  String inFlightLabel() {
    return committer == Committer.IDLE ? "-" : inFlight + (committer.async ? " per worker" : " per thread");
  }
}
