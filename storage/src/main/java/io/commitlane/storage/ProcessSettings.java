package io.commitlane.storage;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The process-wide {@link CommitlaneSettings}. A database reads them once, when it is opened;
 * databases already open keep the values they opened with.
 */
public final class ProcessSettings {
  private static final AtomicReference<CommitlaneSettings> CURRENT =
      new AtomicReference<>(CommitlaneSettings.defaults());

  private ProcessSettings() {}

  public static CommitlaneSettings current() {
    return CURRENT.get();
  }

  /**
   * Change some fields. All of them are validated against the current values before any is
   * applied: on {@link InvalidSettingsException} nothing changed.
   */
  public static CommitlaneSettings configure(Map<String, ?> changes) {
    return CURRENT.updateAndGet(s -> s.with(changes));
  }

  public static void set(CommitlaneSettings settings) {
    CURRENT.set(Objects.requireNonNull(settings, "settings"));
  }

  /** Back to {@link CommitlaneSettings#defaults()}; for tests. */
  public static void reset() {
    CURRENT.set(CommitlaneSettings.defaults());
  }
}
