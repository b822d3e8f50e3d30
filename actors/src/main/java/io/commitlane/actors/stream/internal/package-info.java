/**
 * INTERNAL API. The graph stages behind {@link io.commitlane.actors.stream}'s factories. Entry
 * points: {@link io.commitlane.actors.stream.internal.WriteCommitter} (what {@link
 * io.commitlane.actors.stream.CommitFlow} builds: admits each request's transaction, retries
 * conflicts, emits one outcome per request), {@link io.commitlane.actors.stream.internal.RecordBatcher}
 * and {@link io.commitlane.actors.stream.internal.IngestTotalsSink} (what {@link
 * io.commitlane.actors.stream.Ingest} chains), {@link
 * io.commitlane.actors.stream.internal.ChangeFeedStage} (what {@link
 * io.commitlane.actors.stream.ChangeFeed} reads through), and {@link
 * io.commitlane.actors.stream.internal.StreamConfig}, the shared reader of {@code
 * commitlane.stream} settings.
 */
package io.commitlane.actors.stream.internal;
