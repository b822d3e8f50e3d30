package io.commitlane.storage;

/**
 * The body of a transaction run by {@link Database#transact}: it reads and writes through the
 * transaction it is given and returns a result; it does not commit. It may run more than once
 * (once per attempt), so it should have no other side effects.
 */
@FunctionalInterface
public interface TransactionFunction<T> {
  T apply(Transaction txn);
}
