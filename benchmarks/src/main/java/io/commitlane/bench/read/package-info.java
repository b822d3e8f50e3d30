/**
 * {@code ./commitlane reads}: {@link io.commitlane.bench.read.ReadBench}; one {@link io.commitlane.bench.read.ReadPeer} per
 * store (commitlane on the calling thread and through its actor protocol, raw rocksdbjni, LMDB), one
 * {@link io.commitlane.bench.read.ReadRow} per kind of read.
 */
package io.commitlane.bench.read;
