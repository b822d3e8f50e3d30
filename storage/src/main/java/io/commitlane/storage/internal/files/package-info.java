/**
 * INTERNAL API. What a database directory holds and who wrote it: RocksDB's own files as its
 * manifest names them ({@code RocksDbManifest}, {@code RocksDbOwnFiles}), commitlane's files beside
 * them ({@link io.commitlane.storage.internal.files.DatabaseFiles}, the entry point, which decides
 * what {@code Database.destroy} may delete), the store-drop intent files ({@link
 * io.commitlane.storage.internal.files.DropIntents}), and path and disk-full helpers.
 */
package io.commitlane.storage.internal.files;
