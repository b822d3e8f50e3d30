/**
 * INTERNAL API. The commit path of one database: validation against the version records, the
 * commit hooks (where the transaction log appends), the RocksDB write, and the records that later
 * validations read. Entry point: {@link io.commitlane.storage.internal.commit.CommitPath}, which
 * {@code Database}, {@code Transaction} and the actor pipeline drive with a {@link
 * io.commitlane.storage.internal.commit.PendingCommit}.
 *
 * <p>One commit, in order, all on the thread that calls {@code CommitPath.commit} (the caller of
 * {@code Transaction.commit}, or an actor pipeline commit executor):
 * <ol>
 *   <li>lock the commit's buckets in sorted order ({@link
 *       io.commitlane.storage.internal.commit.VersionTable}), or the serial commit lock;
 *   <li>validate its reads (and blind writes) per key: the bucket version, then {@link
 *       io.commitlane.storage.internal.commit.RecentWrites}; its scanned intervals against {@link
 *       io.commitlane.storage.internal.commit.OrderedWrites} ({@code VALIDATED});
 *   <li>the hooks' before-write step ({@link io.commitlane.storage.internal.commit.Hooks}; a
 *       logged commit appends its record) ({@code LOG_APPENDED});
 *   <li>one RocksDB write of the {@link io.commitlane.storage.internal.commit.WriteBuffer}
 *       (serialized by {@link io.commitlane.storage.internal.commit.WriteBatchFormat}), then stamp
 *       the buckets, record the keys, unlock ({@code WRITTEN});
 *   <li>the hooks' after-write step ({@code FINISHED}).
 * </ol>
 * The two-lane mode splits this after step 3: {@code CommitPath.prepare} runs steps 1-3 on one
 * thread and returns a {@code Prepared} commit that holds its locks; {@code write} or {@code
 * abandon} runs the rest exactly once on another thread (the write lane). A merged write group
 * ({@code commitGroup}) validates and hooks each member in turn under all their locks and writes
 * them with one RocksDB write. {@link io.commitlane.storage.internal.commit.WalGroupSyncer} is the
 * only thread of its own here: it syncs RocksDB's WAL for commits that asked for it.
 */
package io.commitlane.storage.internal.commit;
