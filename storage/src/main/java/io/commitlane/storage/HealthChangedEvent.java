package io.commitlane.storage;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** Flight Recorder: the database's health changed (a RocksDB background error, or its recovery). */
@Name("io.commitlane.HealthChanged")
@Label("Health Changed")
@Category({"commitlane", "Health"})
@Description("A RocksDB background error (failed flush or compaction, full disk) or the recovery from one")
final class HealthChangedEvent extends jdk.jfr.Event {
  @Label("Database") String database;
  @Label("State") @Description("OK, DEGRADED (RocksDB recovers on its own) or FAILED (needs a reopen)") String state;
  @Label("Previous State") String previous;
  @Label("Reason") @Description("FLUSH, COMPACTION, WRITE_CALLBACK or MEMTABLE; empty when OK") String reason;
  @Label("Error") @Description("RocksDB's status of the failure; empty when OK") String error;
}
