package io.commitlane.bench.harness;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.Transaction;
import java.util.SplittableRandom;

/** The transaction every commitlane row of the pipeline bench commits. */
public final class BenchTransactions {
  /** The transaction log that rows with the log write to. */
  static final String LOG_NAME = "bench";

  private BenchTransactions() {}

  /**
   * The keys, all with one value; with {@code log}, also one log entry (the value) per key, as the
   * seed's benchmark writes one audit entry per record.
   */
  public static Transaction begin(CommitlaneDatabase db, byte[][] keys, byte[] value, boolean log) {
    return begin(db, keys, value, log, false);
  }

  /** As above; with {@code readFirst}, the transaction first reads every key (tracked reads, validated at commit). */
  public static Transaction begin(CommitlaneDatabase db, byte[][] keys, byte[] value, boolean log, boolean readFirst) {
    Transaction txn = db.begin();
    if (readFirst) {
      for (byte[] k : keys) {
        txn.get(k);
      }
    }
    if (log) {
      txn.useLog(LOG_NAME);
    }
    for (byte[] k : keys) {
      txn.put(k, value);
      if (log) {
        txn.addLogEntry(value);
      }
    }
    return txn;
  }

  /** A worker's value: {@code size} random bytes from its own generator. */
  public static byte[] randomValue(SplittableRandom random, int size) {
    byte[] value = new byte[size];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) random.nextInt();
    }
    return value;
  }
}
