/**
 * {@code ./commitlane txlog}: {@link io.commitlane.bench.txlog.TxlogBench}, transaction-log appends against LMDB.
 */
package io.commitlane.bench.txlog;
