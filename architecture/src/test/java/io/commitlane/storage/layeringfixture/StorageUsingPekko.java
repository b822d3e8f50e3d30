package io.commitlane.storage.layeringfixture;

/** Breaks the storage layering rule on purpose, so LayeringTest can show the rule catches it. */
public final class StorageUsingPekko {
  public Object done() {
    return org.apache.pekko.Done.getInstance();
  }
}
