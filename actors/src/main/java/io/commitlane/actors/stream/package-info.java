/**
 * Pekko Streams stages over a {@link io.commitlane.actors.CommitlaneDatabase}.
 *
 * <ul>
 *   <li>{@link io.commitlane.actors.stream.CommitFlow}: {@link io.commitlane.actors.stream.WriteRequest}s
 *       in, one {@link io.commitlane.actors.stream.WriteOutcome} per request out, ordered or as
 *       commits complete, with bounded parallelism. A full commit queue backpressures (the stage
 *       waits in the database's line of waiters and resumes as soon as a place frees; nothing more
 *       is pulled meanwhile);
 *       conflicts are retried per {@link io.commitlane.actors.stream.ConflictRetry}.
 *   <li>{@link io.commitlane.actors.stream.Ingest}: records grouped into transactions by count,
 *       bytes and an optional linger, committed in order, totals as the materialized value.
 *   <li>{@link io.commitlane.actors.stream.ChangeFeed}: the committed records of a transaction
 *       log from a position, a timestamp or the last flushed position, following new commits.
 * </ul>
 *
 * <p><b>Threads.</b> Stage logic, request bodies and {@link io.commitlane.actors.stream.RecordWriter}s
 * run on the stream's dispatcher; commits run on the database's commit executors; a commit's
 * completion crosses back through a stage async callback (the completing thread only enqueues);
 * change-feed reads run on Pekko's blocking-I/O dispatcher. Nothing runs on {@code
 * ForkJoinPool.commonPool()}.
 */
package io.commitlane.actors.stream;
