/**
 * INTERNAL API. The commit pipeline of one open database: admission, the bounded queue, the commit
 * executors, the runner and the delivery of outcomes. Entry point: {@link
 * io.commitlane.actors.internal.pipeline.Pipeline} ({@code commit}, {@code admit}), one per open
 * path, shared by every handle of the path.
 *
 * <p><b>Threads and hand-offs, in order</b> ({@code mode = threads}, the default):
 * <ol>
 *   <li><b>Caller's thread</b> (a plain Java caller, an actor, a stream stage): the handle's {@link
 *       io.commitlane.actors.internal.pipeline.AdmissionGate} counts the commit, and {@link
 *       io.commitlane.actors.internal.pipeline.CommitQueue#offer} enqueues it (or refuses it when
 *       full, or parks an {@link io.commitlane.actors.AdmissionTicket} in the line of waiters) and
 *       claims one idle executor ({@link io.commitlane.actors.internal.pipeline.ExecutorSignal}:
 *       nothing for a spinner, an unpark, or a {@code Wake} message), or asks the supervisor for
 *       another executor. No actor hop.
 *   <li><b>Commit executor thread</b> (one per {@link
 *       io.commitlane.actors.internal.pipeline.CommitExecutor}, on the pinned {@code
 *       commitlane.commit-dispatcher}): drains the queue, merges queued commits into write groups,
 *       and runs each through {@link io.commitlane.actors.internal.pipeline.CommitRunner}: validate,
 *       before-write hooks (the log append in {@code TransactionLogs}, request-id records), the
 *       RocksDB write, after-write hooks. Its outcome is then delivered in one documented sequence
 *       ({@link io.commitlane.actors.internal.pipeline.CommitRunner.Outcome#deliver}): the log
 *       record's durability (a logged commit whose log promises fsync durability waits for its
 *       record's force, which the log's force thread completes), then {@link
 *       io.commitlane.actors.internal.pipeline.CommitRequest#complete}: claimed stores back,
 *       request-id attempt settled, reply told.
 *   <li><b>Completion dispatcher</b> ({@code commitlane.completion-dispatcher}, Pekko's default
 *       unless configured): {@link io.commitlane.actors.internal.pipeline.CompletionBatcher} hands
 *       the callbacks collected during a drain to it as one task; the caller's future ({@link
 *       io.commitlane.actors.internal.pipeline.CommitFuture}) completes or its actor is told there,
 *       never on the commit thread.
 * </ol>
 *
 * <p>{@code two-lane} puts one hand-off between 2 and its write: a log-lane thread validates and
 * logs each commit in admission order, then hands it to the {@link
 * io.commitlane.actors.internal.pipeline.WriteLane}, whose executors write it to RocksDB. The mode
 * is looked at once, when the pipeline opens: it picks the commit-step strategy ({@link
 * io.commitlane.actors.internal.pipeline.CommitLanes}), which says which queues have executors and
 * what each executor runs. When no
 * executor thread can be started at all, commits run on their callers' threads ({@link
 * io.commitlane.actors.internal.pipeline.Pipeline#runInline}) until the database closes.
 *
 * <p>{@link io.commitlane.actors.internal.pipeline.Faults} holds the failure points tests arm.
 */
package io.commitlane.actors.internal.pipeline;
