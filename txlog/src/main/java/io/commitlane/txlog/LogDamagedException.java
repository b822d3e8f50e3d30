package io.commitlane.txlog;

import java.util.List;

/**
 * A log opened with {@link RecoveryMode#ABSOLUTE_CONSISTENCY} has damage: nothing was changed and
 * the log is not open. {@link #damage()} lists every damage found; the message names the first
 * (segment and offset). Inspect the directory with {@link LogInspector}, then restore it or open
 * with another {@link RecoveryMode}.
 */
public final class LogDamagedException extends TransactionLogException {
  private final transient List<LogDamage> damage;

  public LogDamagedException(String logName, List<LogDamage> damage) {
    super("transaction log '" + logName + "' is damaged and the recovery mode is absolute-consistency,"
        + " so it was not opened: " + damage.get(0)
        + (damage.size() > 1 ? " (and " + (damage.size() - 1) + " more)" : "")
        + "; inspect it, restore it, or open with recovery point-in-time or skip-corrupted");
    this.damage = List.copyOf(damage);
  }

  public List<LogDamage> damage() {
    return damage;
  }
}
