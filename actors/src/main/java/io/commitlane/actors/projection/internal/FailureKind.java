package io.commitlane.actors.projection.internal;

import io.commitlane.annotation.InternalApi;

/** INTERNAL API. What a projection runner does after a failed step, as its {@link ProjectionStore} classifies the failure. */
@InternalApi
public enum FailureKind {
  /** Nothing was written and it will pass soon (a full commit queue): read the position again after the conflict backoff. */
  RETRY_SOON,
  /** It may pass (no leader, a storage error): restart after the restart backoff, counted against max-restarts. */
  TRANSIENT,
  /** It will not pass (a closed database, an unknown log, a gap in the log): stop with it. */
  PERMANENT
}
