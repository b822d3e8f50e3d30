package io.commitlane.storage;

import java.util.Locale;

/** Whether a write the transaction did not read first can conflict. */
public enum BlindWrites {
  /**
   * RocksDB's rule (default): a write to a key that another commit wrote after the transaction's
   * baseline (its first write or read) conflicts, even if the transaction never read that key.
   */
  CONFLICT,
  /**
   * Only reads are validated (Silo-style backward validation, enough for serializability): a
   * blind write never conflicts; it still takes its bucket lock, so commits to a key stay ordered
   * and the log order agrees with the commit order. The baseline is taken at the first read, so a
   * transaction that read nothing has nothing to validate and is ordered at its commit.
   */
  ORDERED;

  public String settingName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
