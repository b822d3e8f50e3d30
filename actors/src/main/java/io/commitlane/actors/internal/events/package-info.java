/**
 * INTERNAL API. Commitlane's Flight Recorder events: commits admitted, dequeued and acknowledged,
 * executors started and stopped, logs replayed. Their names ({@code io.commitlane.*}, given by
 * {@code @Name}) are stable whatever package the classes live in; {@link
 * io.commitlane.actors.CommitlaneEvents} lists them for recordings made in code. Each is emitted
 * where its event happens (the pipeline, crash replay).
 */
package io.commitlane.actors.internal.events;
