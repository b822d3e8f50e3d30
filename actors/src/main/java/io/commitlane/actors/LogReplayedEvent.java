package io.commitlane.actors;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** Flight Recorder: a transaction log replayed into its database when it opened: what the last flush did not hold. */
@Name("io.commitlane.LogReplayed")
@Label("Log Replayed")
@Category({"commitlane", "Transaction Log"})
@Description("A transaction log replayed into its database when it opened: what the last flush did not hold")
final class LogReplayedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  static final LogReplayedEvent TYPE = new LogReplayedEvent();

  @Label("Database") String database;
  @Label("Log") String log;
  @Label("Transactions") @Description("Transactions applied from the log") long transactions;
  @Label("Already Durable") @Description("Logged transactions RocksDB already held, skipped") long alreadyDurable;
  @Label("Skipped Writes") @Description("Writes to stores dropped before the crash, skipped") long skippedWrites;
  @Label("Not Replayed") @Description("Acknowledged transactions after damage that were not restored (point-in-time recovery)") long notReplayed;
  @Label("Damage") @Description("Damaged places found in the log") int damage;
}
