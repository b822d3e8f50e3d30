package io.commitlane.storage.internal.rocks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NativeCallbacksTest {
  /** The test JVM loads rocksdbjni from the class path, as an application should: RocksDB's callbacks reach Java. */
  @Test
  void rocksDbsCallbackClassesAreVisibleToTheSystemClassLoaderHere() {
    assertTrue(NativeCallbacks.reachable());
  }
}
