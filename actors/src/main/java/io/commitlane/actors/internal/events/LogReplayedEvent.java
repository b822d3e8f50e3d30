package io.commitlane.actors.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** Flight Recorder: a transaction log replayed into its database when it opened: what the last flush did not hold. */
@Name("io.commitlane.LogReplayed")
@Label("Log Replayed")
@Category({"commitlane", "Transaction Log"})
@Description("A transaction log replayed into its database when it opened: what the last flush did not hold")
public final class LogReplayedEvent extends jdk.jfr.Event {
  /** Asked only whether the event type is enabled; never committed. */
  public static final LogReplayedEvent TYPE = new LogReplayedEvent();

  public @Label("Database") String database;
  public @Label("Log") String log;
  public @Label("Transactions") @Description("Transactions applied from the log") long transactions;
  public @Label("Already Durable") @Description("Logged transactions RocksDB already held, skipped") long alreadyDurable;
  public @Label("Skipped Writes") @Description("Writes to stores dropped before the crash, skipped") long skippedWrites;
  @Label("Not Replayed") @Description("Acknowledged transactions after damage that were not restored (point-in-time recovery)") public long notReplayed;
  public @Label("Damage") @Description("Damaged places found in the log") int damage;
}
