package io.commitlane.actors.stream.internal;

import com.typesafe.config.Config;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.actors.internal.config.StreamKeys;
import io.commitlane.actors.internal.config.StreamKeys.RetryKeys;
import io.commitlane.actors.stream.Backoff;
import io.commitlane.actors.stream.ConflictRetry;
import io.commitlane.storage.internal.settings.Setting;
import java.time.Duration;
import java.util.List;

/**
 * Reads one section of {@code commitlane.stream { ... }} through its definitions ({@link
 * StreamKeys}): its keys (any other is refused), and the conflict retries the stream stages share.
 * Errors name the full path of their key and are collected in the {@link ConfigSection}; there is
 * no fallback: a config is expected to include {@code reference.conf}.
 */
public final class StreamConfig {
  public static final String ROOT = "commitlane.stream";

  private StreamConfig() {}

  /** {@code commitlane.<section>} of {@code config}, refusing any key that is not one of {@code settings}. */
  public static ConfigSection section(Config config, String section, List<Setting> settings) {
    ConfigSection c = new ConfigSection(config, "commitlane." + section);
    c.refuseUnknown(settings);
    return c;
  }

  /**
   * The conflict-retry keys of the section, each checked through its definition, and backoff-max
   * against backoff-min; null (reported) if any is not allowed.
   */
  public static ConflictRetry conflictRetry(ConfigSection c, RetryKeys keys) {
    Long attempts = (Long) c.read(keys.maxAttempts());
    Duration min = (Duration) c.read(keys.backoffMin());
    Duration max = (Duration) c.read(keys.backoffMax());
    Double random = (Double) c.read(keys.backoffRandomFactor());
    if (min != null && max != null && max.compareTo(min) < 0) {
      String key = c.relative(keys.backoffMax().key());
      c.error(key, c.raw(key), keys.backoffMax().allowed());
      return null;
    }
    if (attempts == null || min == null || max == null || random == null) {
      return null;
    }
    return new ConflictRetry(attempts.intValue(), new Backoff(min, max, random));
  }
}
