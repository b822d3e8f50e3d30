/**
 * {@code ./commitlane storage}: {@link io.commitlane.bench.storage.StorageBench}, storage-level commitSync against raw rocksdbjni.
 */
package io.commitlane.bench.storage;
