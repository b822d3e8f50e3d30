package io.commitlane.cluster;

import io.commitlane.cluster.internal.routing.Names;
import com.typesafe.config.Config;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code commitlane.cluster { ... }} settings (see {@code reference.conf} for units, ranges and
 * defaults). Construction validates every field and reports all bad ones together.
 *
 * @param dataDir where this node keeps the databases it owns, {@code <dataDir>/<name>}; null on a
 *     node that hosts none (a client-only node)
 * @param askTimeout how long a client waits for the owner's reply
 * @param openRetryInterval how often a new owner retries a database the previous owner still holds
 * @param openTimeout how long it retries before answering {@code PREVIOUS_OWNER_HOLDS}
 * @param openBuffer commands buffered while a database opens
 * @param passivateIdleAfter close a database idle this long; empty = never
 * @param conflictRetries owner-side re-runs of a conditional commit that conflicted
 * @param entityDispatcher the dispatcher of the database entities
 * @param requireSplitBrainResolver refuse to start without Pekko's split-brain resolver
 * @param role the cluster role of the nodes that host databases; empty = every node hosts them
 */
public record ClusterSettings(
    Path dataDir,
    Duration askTimeout,
    Duration openRetryInterval,
    Duration openTimeout,
    int openBuffer,
    Optional<Duration> passivateIdleAfter,
    int conflictRetries,
    String entityDispatcher,
    boolean requireSplitBrainResolver,
    Optional<String> role) {

  public static final String ROOT = "commitlane.cluster";
  /** The dispatcher that opens and closes databases (blocking). */
  public static final String BLOCKING_DISPATCHER = ROOT + ".blocking-dispatcher";

  public ClusterSettings {
    List<SettingError> errors = new ArrayList<>();
    within(errors, "ask-timeout", askTimeout, Duration.ofMillis(1), Duration.ofMinutes(10), "1 ms..10 minutes");
    within(errors, "open-retry-interval", openRetryInterval, Duration.ofMillis(1), Duration.ofMinutes(1), "1 ms..1 minute");
    within(errors, "open-timeout", openTimeout, Duration.ZERO, Duration.ofMinutes(10), "0..10 minutes");
    if (openBuffer < 1 || openBuffer > 1_000_000) {
      errors.add(new SettingError(ROOT + ".open-buffer", openBuffer, "must be an integer in 1..1000000"));
    }
    if (passivateIdleAfter == null) {
      passivateIdleAfter = Optional.empty();
    }
    passivateIdleAfter.ifPresent(d -> within(errors, "passivate-idle-after", d, Duration.ofSeconds(1), Duration.ofDays(365),
        "a duration 1 s..365 days, or off"));
    if (conflictRetries < 0 || conflictRetries > 100) {
      errors.add(new SettingError(ROOT + ".conflict-retries", conflictRetries, "must be an integer in 0..100"));
    }
    if (entityDispatcher == null || entityDispatcher.isBlank()) {
      errors.add(new SettingError(ROOT + ".entity-dispatcher", entityDispatcher, "must name a dispatcher"));
    }
    if (role == null) {
      role = Optional.empty();
    }
    role.ifPresent(r -> {
      if (r.isBlank()) {
        errors.add(new SettingError(ROOT + ".role", r, "must be a cluster role name, or empty for every node"));
      }
    });
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  /** Read and validate {@code commitlane.cluster} from a config that includes the reference.conf defaults. */
  public static ClusterSettings fromConfig(Config config) {
    ConfigSection c = new ConfigSection(config, ROOT);
    Path dataDir = null;
    String dir = c.string("data-dir", null, "must be a string");
    if (dir != null && !dir.isEmpty()) { // empty: a node that hosts no databases (checked by DatabaseSharding.init)
      try {
        dataDir = Path.of(dir).toAbsolutePath().normalize();
      } catch (InvalidPathException e) {
        c.error("data-dir", dir, "must be a valid path: " + e.getMessage());
      }
    }
    Duration ask = c.duration("ask-timeout", null);
    Duration retry = c.duration("open-retry-interval", null);
    Duration openTimeout = c.duration("open-timeout", null);
    int buffer = c.intIn("open-buffer", 1, 1_000_000, 1);
    Optional<Duration> idle = isOff(c.raw("passivate-idle-after"))
        ? Optional.empty()
        : Optional.ofNullable(c.duration("passivate-idle-after", null));
    int retries = c.intIn("conflict-retries", 0, 100, 0);
    String dispatcher = c.string("entity-dispatcher", null, "must name a dispatcher");
    boolean requireSbr = c.bool("require-split-brain-resolver", true);
    String roleName = c.string("role", null, "must be a string");
    Optional<String> role = roleName == null || roleName.isEmpty() ? Optional.empty() : Optional.of(roleName);
    ClusterSettings settings = null;
    try {
      settings = new ClusterSettings(dataDir, ask, retry, openTimeout, buffer, idle, retries, dispatcher, requireSbr, role);
    } catch (InvalidSettingsException e) {
      // Report range errors with the parse errors, once per field.
      for (SettingError each : e.errors()) {
        if (c.errors().stream().noneMatch(x -> x.field().equals(each.field()))) {
          c.error(each);
        }
      }
    }
    c.throwIfInvalid(); // also when the values parsed but the constructor refused some
    return settings;
  }

  public ClusterSettings withDataDir(Path dir) {
    return new ClusterSettings(dir, askTimeout, openRetryInterval, openTimeout, openBuffer, passivateIdleAfter, conflictRetries,
        entityDispatcher, requireSplitBrainResolver, role);
  }

  public ClusterSettings withAskTimeout(Duration timeout) {
    return new ClusterSettings(dataDir, timeout, openRetryInterval, openTimeout, openBuffer, passivateIdleAfter, conflictRetries,
        entityDispatcher, requireSplitBrainResolver, role);
  }

  /** Host databases only on nodes with cluster role {@code role} (null: on every node); the others are client-only. */
  public ClusterSettings withRole(String role) {
    return new ClusterSettings(dataDir, askTimeout, openRetryInterval, openTimeout, openBuffer, passivateIdleAfter, conflictRetries,
        entityDispatcher, requireSplitBrainResolver, Optional.ofNullable(role));
  }

  /** The directory of one database on this node. */
  public Path databaseDir(String name) {
    if (dataDir == null) {
      throw new IllegalStateException(ROOT + ".data-dir is not set on this node, so it cannot open database " + name);
    }
    return dataDir.resolve(Names.database(name));
  }

  private static boolean isOff(Object raw) {
    return Boolean.FALSE.equals(raw) || "off".equals(raw) || "none".equals(raw);
  }

  private static void within(List<SettingError> errors, String key, Duration d, Duration min, Duration max, String allowed) {
    if (d == null || d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      errors.add(new SettingError(ROOT + "." + key, d, "must be " + (allowed.startsWith("a ") ? allowed : "a duration in " + allowed)));
    }
  }
}
