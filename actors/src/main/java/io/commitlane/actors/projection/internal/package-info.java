/**
 * INTERNAL API. The projection runner and the seam each kind of database implements.
 *
 * <p>In order: {@link io.commitlane.actors.projection.internal.ProjectionSource} builds the
 * runner's stage ({@code ProjectionStage}) over a {@link
 * io.commitlane.actors.projection.internal.ProjectionStore}: the stage loads the stored position
 * ({@link io.commitlane.actors.projection.internal.StoredPosition}), reads records after it
 * ({@link io.commitlane.actors.projection.internal.RecordReader}), and commits each batch with its
 * position through the store; {@code ProjectionRun} is what the caller holds of it (status, stop).
 * A failure's kind ({@link io.commitlane.actors.projection.internal.FailureKind}) decides between
 * a retry, a restart and a stop. {@link
 * io.commitlane.actors.projection.internal.LocalProjectionStore} is the store of a local database
 * (what {@link io.commitlane.actors.projection.LocalProjection} runs on).
 */
package io.commitlane.actors.projection.internal;
