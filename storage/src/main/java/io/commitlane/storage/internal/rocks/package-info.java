/**
 * INTERNAL API. Native RocksDB plumbing shared by the open databases of a process: the block
 * cache and write-buffer manager leased per size ({@link
 * io.commitlane.storage.internal.rocks.SharedCaches}, the entry point), the gate that keeps a
 * native handle alive while a call runs on it ({@link
 * io.commitlane.storage.internal.rocks.LifecycleGate}), and whether RocksDB's callbacks can reach
 * Java ({@link io.commitlane.storage.internal.rocks.NativeCallbacks}).
 */
package io.commitlane.storage.internal.rocks;
