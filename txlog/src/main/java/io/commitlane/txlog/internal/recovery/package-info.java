/**
 * INTERNAL API. What a log does at open: {@link io.commitlane.txlog.internal.recovery.LogRecovery}
 * (the entry point) scans every segment, judges damage against the {@link
 * io.commitlane.txlog.RecoveryMode} and cuts a torn tail; {@link
 * io.commitlane.txlog.internal.recovery.LogReplay} fixes the crash replay range (from the
 * persisted flushed position to the end recovery found) that {@code TransactionLog.replay} offers.
 */
package io.commitlane.txlog.internal.recovery;
