package io.commitlane.actors.stream;

import com.typesafe.config.Config;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.actors.stream.internal.StreamConfig;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Settings of a {@link CommitFlow}. Immutable; each {@code with} method returns a copy. The
 * defaults are those of {@code commitlane.stream.commit-flow} in {@code reference.conf}.
 *
 * <p>A full commit queue needs no setting: the flow waits in the database's line for the next
 * free place and resumes the moment a commit leaves the queue (see {@link CommitFlow}).
 *
 * @param parallelism requests taken from upstream and not yet emitted, at most: commits admitted
 *     or waiting for admission, conflict retries waiting for their backoff and (ordered flow)
 *     outcomes waiting for an earlier one. 1..4096, default 8.
 * @param conflictRetry how conflicts are retried; default {@link ConflictRetry#defaults()}
 * @param failureMode what a failed request does to the stream; default {@link FailureMode#EMIT}
 */
public record CommitFlowSettings(int parallelism, ConflictRetry conflictRetry, FailureMode failureMode) {
  public static final int MAX_PARALLELISM = 4096;
  /** The section of the actor system's config these settings are read from. */
  public static final String SECTION = StreamConfig.ROOT + ".commit-flow";

  public CommitFlowSettings {
    List<SettingError> errors = new ArrayList<>();
    checkParallelism("parallelism", parallelism, errors);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    Objects.requireNonNull(conflictRetry, "conflictRetry");
    Objects.requireNonNull(failureMode, "failureMode");
  }

  private static void checkParallelism(String field, int parallelism, List<SettingError> errors) {
    if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
      errors.add(new SettingError(field, parallelism, "must be an integer in 1.." + MAX_PARALLELISM));
    }
  }

  /** The built-in defaults (the same as {@code reference.conf}'s). */
  public static CommitFlowSettings defaults() {
    return new CommitFlowSettings(8, ConflictRetry.defaults(), FailureMode.EMIT);
  }

  /** {@code commitlane.stream.commit-flow} of the actor system's config. */
  public static CommitFlowSettings fromConfig(ActorSystem<?> system) {
    return fromConfig(system.settings().config());
  }

  /**
   * {@code commitlane.stream.commit-flow} of {@code config}. Every key is checked before any is
   * used; an {@link InvalidSettingsException} names each bad or unknown key by its full path.
   */
  public static CommitFlowSettings fromConfig(Config config) {
    ConfigSection c = StreamConfig.section(config, "commit-flow", Set.of("parallelism"));
    CommitFlowSettings d = defaults();
    int parallelism = c.integer("parallelism", d.parallelism());
    List<SettingError> ranges = new ArrayList<>();
    checkParallelism(c.path("parallelism"), parallelism, ranges);
    ranges.forEach(c::error);
    ConflictRetry retry = StreamConfig.conflictRetry(c, d.conflictRetry());
    FailureMode mode = StreamConfig.failureMode(c, d.failureMode());
    c.throwIfInvalid();
    return new CommitFlowSettings(parallelism, retry, mode);
  }

  public CommitFlowSettings withParallelism(int parallelism) {
    return new CommitFlowSettings(parallelism, conflictRetry, failureMode);
  }

  public CommitFlowSettings withConflictRetry(ConflictRetry conflictRetry) {
    return new CommitFlowSettings(parallelism, conflictRetry, failureMode);
  }

  public CommitFlowSettings withFailureMode(FailureMode failureMode) {
    return new CommitFlowSettings(parallelism, conflictRetry, failureMode);
  }
}
