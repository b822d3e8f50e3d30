package io.commitlane.txlog;

/** What {@link TransactionLog#append} guarantees when it returns. */
public enum Durability {
  /** Nothing: no fsync ever. Appends are currently written like {@link #PROCESS}. */
  NONE,
  /**
   * The record reached the operating system with a write() before append returns: a process crash
   * (kill -9) loses nothing returned; a power loss may.
   */
  PROCESS,
  /**
   * As {@link #PROCESS}, and {@link TransactionLog#whenDurable} completes only after an fsync that
   * covers the record; a power loss loses nothing whose future completed.
   */
  FSYNC
}
