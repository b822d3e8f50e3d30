package io.commitlane.txlog;

/** Receives the records {@link TransactionLog#replay} offers, in log order. */
@FunctionalInterface
public interface RecordConsumer {

  /** Applies one record. An exception stops the replay and propagates to its caller. */
  void accept(LogRecord record);

  /**
   * Called for a corrupt frame met during replay; the record there is lost and replay goes on
   * with the next one. The default skips it (the log also counts it in {@link LogStats}); override
   * to log it or to stop by rethrowing.
   */
  default void onCorruptFrame(CorruptLogFrameException corruption) {}
}
