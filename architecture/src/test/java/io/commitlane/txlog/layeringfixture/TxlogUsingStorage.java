package io.commitlane.txlog.layeringfixture;

/** Breaks the transaction-log layering rule on purpose, so LayeringTest can show the rule catches it. */
public final class TxlogUsingStorage {
  public Class<?> storage() {
    return io.commitlane.storage.Database.class;
  }
}
