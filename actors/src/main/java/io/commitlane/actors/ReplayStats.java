package io.commitlane.actors;

import io.commitlane.txlog.LogDamage;
import java.util.List;

/**
 * What crash replay did with one transaction log when its database was opened.
 *
 * @param transactions records whose writes were applied
 * @param skippedWrites writes left out because their store was dropped before the crash (its
 *     name gone, or now belonging to a newer generation of the store)
 * @param alreadyDurable records RocksDB already held (through its own WAL or a flush): not
 *     applied again, so nothing newer is overwritten
 * @param notReplayed records not applied because they come after damage (point-in-time
 *     recovery): lost, and hidden from readers from now on
 * @param damage the damage found where replay had to read (empty when the log was sound)
 */
public record ReplayStats(long transactions, long skippedWrites, long alreadyDurable, long notReplayed,
    List<LogDamage> damage) {
  public ReplayStats {
    damage = List.copyOf(damage);
  }

  /** Nothing to replay. */
  static final ReplayStats NONE = new ReplayStats(0, 0, 0, 0, List.of());

  /** Whether every record the log held was restored (no damage, nothing left unreplayed). */
  public boolean complete() {
    return notReplayed == 0 && damage.isEmpty();
  }
}
