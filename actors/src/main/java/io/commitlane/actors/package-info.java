/**
 * The actor-facing API of commitlane: open a database in an actor system and commit, read and
 * follow it from Java callers, actors and streams. Entry point: {@link
 * io.commitlane.actors.Commitlane} ({@code Commitlane.get(system)}), which opens {@link
 * io.commitlane.actors.CommitlaneDatabase} handles; {@link io.commitlane.actors.DatabaseActor}
 * serves the same database as an actor speaking {@link io.commitlane.actors.DatabaseProtocol}.
 * Settings are {@link io.commitlane.actors.PipelineSettings}.
 *
 * <p>Everything in this package is API. The machinery is under {@code internal}, by role: {@code
 * pipeline} (admission, queue, executors, outcome delivery), {@code lifecycle} (open, supervise,
 * close), {@code log} (transaction logs and crash replay), {@code protocol} (serving protocol
 * requests), {@code config} (reading settings) and {@code events} (Flight Recorder events).
 * {@link io.commitlane.actors.stream} and {@link io.commitlane.actors.projection} build on the API.
 */
package io.commitlane.actors;
