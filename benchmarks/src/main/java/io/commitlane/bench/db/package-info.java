/**
 * {@code ./commitlane db stats|compact}: {@link io.commitlane.bench.db.DbCommand}.
 */
package io.commitlane.bench.db;
