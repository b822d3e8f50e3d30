package io.commitlane.storage;

import java.time.Instant;

/**
 * Whether RocksDB's background work (flushes, compactions, its WAL and memtables) is healthy, as
 * RocksDB last reported it. A background error is how RocksDB says a flush or compaction failed
 * (a full disk, an I/O error); depending on the error it keeps accepting writes, or refuses every
 * write until it has recovered.
 *
 * @param state {@link State#OK}, {@link State#DEGRADED} or {@link State#FAILED}
 * @param reason what failed: {@code FLUSH}, {@code COMPACTION}, {@code WRITE_CALLBACK} (a WAL
 *     write or sync) or {@code MEMTABLE}; empty when OK
 * @param error RocksDB's status of the failure (code, subcode and text); empty when OK
 * @param since when the database entered this state
 */
public record DatabaseHealth(State state, String reason, String error, Instant since) {
  /** The three states, from the cheapest to the most serious. */
  public enum State {
    /** No background error since open, or RocksDB recovered from the last one. */
    OK,
    /**
     * A background error RocksDB is recovering from on its own (for example, it retries a flush
     * once the disk has room again). Writes may be refused meanwhile, with a retryable
     * {@link BackgroundErrorException}.
     */
    DEGRADED,
    /**
     * A background error RocksDB will not recover from on its own (an I/O error, a damaged file):
     * writes are refused with a {@link BackgroundErrorException} until every handle is closed and
     * the database reopened ({@link Database#resume()} fails at once). Reads still work.
     */
    FAILED
  }

  static DatabaseHealth ok(Instant since) {
    return new DatabaseHealth(State.OK, "", "", since);
  }

  /** Whether this is {@link State#OK}. */
  public boolean isOk() {
    return state == State.OK;
  }

  /** One line for logs and the command line: the state, and what failed when not OK. */
  @Override
  public String toString() {
    return state == State.OK ? "OK" : state + " (" + reason + " failed: " + error + ")";
  }
}
