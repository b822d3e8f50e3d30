package io.commitlane.cluster.internal.config;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.settings.Setting;
import java.time.Duration;
import java.util.List;

/**
 * INTERNAL API. The settings of {@code commitlane.cluster} ({@code ClusterSettings}), each defined
 * once: key under {@code commitlane}, Java field, range and a line of doc. Their defaults are in
 * this module's {@code reference.conf} only; its {@code blocking-dispatcher} section is Pekko
 * dispatcher configuration, not a setting.
 */
@InternalApi
public final class ClusterKeys {
  /** {@code commitlane.cluster}, relative to {@code commitlane}. */
  public static final String SECTION = "cluster";

  public static final Setting DATA_DIR = Setting.text(SECTION + ".data-dir", "dataDir",
      "a path, or empty on a node that hosts no databases", "where this node keeps the databases it owns");
  public static final Setting ROLE = Setting.text(SECTION + ".role", "role", "a cluster role name, or empty for every node",
      "the cluster role of the nodes that host databases");
  public static final Setting ASK_TIMEOUT = Setting.duration(SECTION + ".ask-timeout", "askTimeout", Duration.ofMillis(1),
      Duration.ofMinutes(10), "1 ms..10 minutes", "how long a client waits for the owner's reply");
  public static final Setting OPEN_RETRY_INTERVAL = Setting.duration(SECTION + ".open-retry-interval", "openRetryInterval",
      Duration.ofMillis(1), Duration.ofMinutes(1), "1 ms..1 minute",
      "how often a new owner retries a database the previous owner still holds");
  public static final Setting OPEN_TIMEOUT = Setting.duration(SECTION + ".open-timeout", "openTimeout", Duration.ZERO,
      Duration.ofMinutes(10), "0..10 minutes", "how long a new owner retries before answering PREVIOUS_OWNER_HOLDS");
  public static final Setting OPEN_BUFFER = Setting.integer(SECTION + ".open-buffer", "openBuffer", 1, 1_000_000,
      "commands a database buffers while it opens");
  public static final Setting PASSIVATE_IDLE_AFTER = Setting.durationOrOff(SECTION + ".passivate-idle-after",
      "passivateIdleAfter", Duration.ofSeconds(1), Duration.ofDays(365), "1 s..365 days",
      "close a database that received no command for this long");
  public static final Setting CONFLICT_RETRIES = Setting.integer(SECTION + ".conflict-retries", "conflictRetries", 0, 100,
      "owner-side re-runs of a conditional commit that conflicted");
  public static final Setting ENTITY_DISPATCHER = Setting.text(SECTION + ".entity-dispatcher", "entityDispatcher",
      "a dispatcher path", "the dispatcher database entities run on");
  public static final Setting REQUIRE_SPLIT_BRAIN_RESOLVER = Setting.flag(SECTION + ".require-split-brain-resolver",
      "requireSplitBrainResolver", "refuse to start without Pekko's split-brain resolver");

  /** Every setting above, in reference.conf's order. */
  public static final List<Setting> ALL = List.of(DATA_DIR, ROLE, ASK_TIMEOUT, OPEN_RETRY_INTERVAL, OPEN_TIMEOUT, OPEN_BUFFER,
      PASSIVATE_IDLE_AFTER, CONFLICT_RETRIES, ENTITY_DISPATCHER, REQUIRE_SPLIT_BRAIN_RESOLVER);

  private ClusterKeys() {}

  /** The full path of {@code setting} ({@code commitlane.cluster.ask-timeout}), as errors name it. */
  public static String path(Setting setting) {
    return "commitlane." + setting.key();
  }
}
