package io.commitlane.storage;

import java.util.Locale;

/** Whether a write the transaction did not read first can conflict. */
public enum BlindWrites {
  /**
   * RocksDB's rule for a transaction with a snapshot (default): a write to a key that another
   * commit wrote after the transaction's baseline (taken just before its snapshot, at its first
   * read) conflicts, even if the transaction never read that key. A transaction that read nothing
   * has no snapshot and nothing its writes depend on: it is ordered at its commit and never
   * conflicts (RocksDB would fail it if another commit wrote one of its keys after its put).
   */
  CONFLICT,
  /**
   * Only reads are validated (Silo-style backward validation, enough for serializability): a
   * blind write never conflicts; it still takes its bucket lock, so commits to a key stay ordered
   * and the log order agrees with the commit order.
   */
  ORDERED;

  public String settingName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
