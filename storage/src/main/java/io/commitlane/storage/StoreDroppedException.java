package io.commitlane.storage;

import java.nio.file.Path;

/**
 * The store was dropped (or is being dropped): new transactions, reads and writes on it are
 * refused and nothing of the refused work was written. Not retryable on the same {@link Store}:
 * that generation is gone for good. Create the name again with {@link Database#createStore} and
 * run the work on a new transaction against the new store (an empty one).
 */
public final class StoreDroppedException extends CommitlaneException {
  private final String store;
  private final int generation;

  public StoreDroppedException(String store, int generation, Path path) {
    super("store '" + store + "' (generation " + generation + ") of " + path
        + " was dropped; nothing was written. Create it again with createStore(\"" + store
        + "\") and use the new store on a new transaction");
    this.store = store;
    this.generation = generation;
  }

  /** The dropped store's name. */
  public String store() {
    return store;
  }

  /** The dropped store's generation ({@link Store#generation()}). */
  public int generation() {
    return generation;
  }
}
