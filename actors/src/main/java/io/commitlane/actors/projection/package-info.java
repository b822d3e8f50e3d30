/**
 * Exactly-once projections of a transaction log into the same database: {@link
 * io.commitlane.actors.projection.Projection} (the description; {@link
 * io.commitlane.actors.projection.LocalProjection} builds one for a local database), run as a
 * stream ({@code source()}), on its own ({@code run(system)}, a {@link
 * io.commitlane.actors.projection.ProjectionControl}) or as an actor ({@link
 * io.commitlane.actors.projection.ProjectionActor}). The runner is in {@code internal}. See
 * docs/projections.md.
 */
package io.commitlane.actors.projection;
