/**
 * {@code ./commitlane recovery}: {@link io.commitlane.bench.recovery.RecoveryCommand}, the long kill -9 recovery check.
 */
package io.commitlane.bench.recovery;
