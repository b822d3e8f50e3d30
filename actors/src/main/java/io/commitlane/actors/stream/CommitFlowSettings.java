package io.commitlane.actors.stream;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.actors.internal.config.StreamKeys;
import io.commitlane.actors.stream.internal.StreamConfig;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Settings of a {@link CommitFlow}. Immutable; each {@code with} method returns a copy. Each
 * setting is defined once (key, range, doc line: {@code StreamKeys}); its default and range are
 * written in {@code commitlane.stream.commit-flow} of {@code reference.conf} only.
 *
 * <p>A full commit queue needs no setting: the flow waits in the database's line for the next
 * free place and resumes the moment a commit leaves the queue (see {@link CommitFlow}).
 *
 * @param parallelism requests taken from upstream and not yet emitted, at most: commits admitted
 *     or waiting for admission, conflict retries waiting for their backoff and (ordered flow)
 *     outcomes waiting for an earlier one.
 * @param conflictRetry how conflicts are retried
 * @param failureMode what a failed request does to the stream
 */
public record CommitFlowSettings(int parallelism, ConflictRetry conflictRetry, FailureMode failureMode) {
  /** The largest {@code parallelism} allowed. */
  public static final int MAX_PARALLELISM = (int) StreamKeys.COMMIT_FLOW_PARALLELISM.max();
  /** The section of the actor system's config these settings are read from. */
  public static final String SECTION = StreamConfig.ROOT + ".commit-flow";

  public CommitFlowSettings {
    List<SettingError> errors = new ArrayList<>();
    StreamKeys.COMMIT_FLOW_PARALLELISM.check(errors, StreamKeys.field(StreamKeys.COMMIT_FLOW, StreamKeys.COMMIT_FLOW_PARALLELISM),
        parallelism);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    Objects.requireNonNull(conflictRetry, "conflictRetry");
    Objects.requireNonNull(failureMode, "failureMode");
  }

  /** The defaults of {@code reference.conf}'s {@code commitlane.stream.commit-flow}. */
  public static CommitFlowSettings defaults() {
    return Defaults.REFERENCE;
  }

  /** Read once, on first use. */
  private static final class Defaults {
    static final CommitFlowSettings REFERENCE = fromConfig(ConfigFactory.defaultReference());
  }

  /** {@code commitlane.stream.commit-flow} of the actor system's config. */
  public static CommitFlowSettings fromConfig(ActorSystem<?> system) {
    return fromConfig(system.settings().config());
  }

  /**
   * {@code commitlane.stream.commit-flow} of {@code config}, which is expected to include {@code
   * reference.conf} (a missing key is an error). Every key is checked before any is used; an
   * {@link InvalidSettingsException} names each bad or unknown key by its full path.
   */
  public static CommitFlowSettings fromConfig(Config config) {
    ConfigSection c = StreamConfig.section(config, StreamKeys.COMMIT_FLOW, StreamKeys.ALL.stream()
        .filter(s -> s.key().startsWith(StreamKeys.COMMIT_FLOW + ".")).toList());
    Long parallelism = (Long) c.read(StreamKeys.COMMIT_FLOW_PARALLELISM);
    ConflictRetry retry = StreamConfig.conflictRetry(c, StreamKeys.COMMIT_FLOW_RETRY);
    FailureMode mode = c.choice(StreamKeys.COMMIT_FLOW_FAILURE_MODE, FailureMode.values());
    c.throwIfInvalid();
    return new CommitFlowSettings(parallelism.intValue(), retry, mode);
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
