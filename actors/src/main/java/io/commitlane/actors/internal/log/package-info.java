/**
 * INTERNAL API. The transaction logs of a database and crash replay. Entry point: {@link
 * io.commitlane.actors.internal.log.TransactionLogs}, the commit hook that appends a commit's
 * record before its RocksDB write and opens (and replays) the logs.
 *
 * <p>{@link io.commitlane.actors.internal.log.CrashReplay} applies, merged across logs in
 * timestamp order, the records RocksDB does not hold, as {@link
 * io.commitlane.actors.internal.log.ReplayMarkers} tell; {@link
 * io.commitlane.actors.internal.log.WriteSetCodec} is a record's format; {@link
 * io.commitlane.actors.internal.log.DeadRecords} settles records whose abort marker could not be
 * written. {@link io.commitlane.actors.internal.log.TransactionLogActor} takes RocksDB's flush
 * events, purges segments and, with {@code txlog.append = actor}, writes the logs on the log
 * dispatcher. {@link io.commitlane.actors.internal.log.ReplayBacklog} counts what an open would
 * replay without replaying it.
 */
package io.commitlane.actors.internal.log;
