/**
 * INTERNAL API. The read journal's queries. Entry point: {@link io.commitlane.persistence.internal.query.EventQueries};
 * every query is a {@link io.commitlane.persistence.internal.query.FollowSource} that pages an index from a cursor below
 * the positions watermark and wakes when it moves ({@link io.commitlane.persistence.internal.query.WriteSignals} for
 * queries by persistence id); offsets are commit positions ({@link io.commitlane.persistence.internal.query.Offsets}).
 */
package io.commitlane.persistence.internal.query;
