/**
 * {@code ./commitlane logappend}: {@link io.commitlane.bench.logappend.LogAppendBench}, log-bearing commits/s.
 */
package io.commitlane.bench.logappend;
