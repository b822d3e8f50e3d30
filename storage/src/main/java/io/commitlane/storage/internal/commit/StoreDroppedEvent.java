package io.commitlane.storage.internal.commit;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * Flight Recorder: a store drop, from the logical drop (the intent synced, new claims refused)
 * to the physical one (the column family dropped once the last commit naming it ended).
 */
@Name("io.commitlane.StoreDropped")
@Label("Store Dropped")
@Category({"commitlane", "Store"})
@Description("A store drop, from the logical drop to the column family's removal after the last claim ended")
public final class StoreDroppedEvent extends jdk.jfr.Event {
  public static final StoreDroppedEvent TYPE = new StoreDroppedEvent();

  @Label("Database") public String database;
  @Label("Store") public String store;
  @Label("Generation") public long generation;
  @Label("Outcome") @Description("DROPPED, FAILED (the next open finishes it) or CLOSED (the database closed first)") public String outcome;
}
