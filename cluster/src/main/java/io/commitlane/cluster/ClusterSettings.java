package io.commitlane.cluster;

import io.commitlane.cluster.internal.routing.Names;
import com.typesafe.config.Config;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.cluster.internal.config.ClusterKeys;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.internal.settings.Setting;
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
    check(errors, ClusterKeys.ASK_TIMEOUT, askTimeout);
    check(errors, ClusterKeys.OPEN_RETRY_INTERVAL, openRetryInterval);
    check(errors, ClusterKeys.OPEN_TIMEOUT, openTimeout);
    ClusterKeys.OPEN_BUFFER.check(errors, ClusterKeys.path(ClusterKeys.OPEN_BUFFER), openBuffer);
    if (passivateIdleAfter == null) {
      passivateIdleAfter = Optional.empty();
    }
    passivateIdleAfter.ifPresent(d -> check(errors, ClusterKeys.PASSIVATE_IDLE_AFTER, d));
    ClusterKeys.CONFLICT_RETRIES.check(errors, ClusterKeys.path(ClusterKeys.CONFLICT_RETRIES), conflictRetries);
    if (entityDispatcher == null || entityDispatcher.isBlank()) {
      errors.add(new SettingError(ClusterKeys.path(ClusterKeys.ENTITY_DISPATCHER), entityDispatcher,
          ClusterKeys.ENTITY_DISPATCHER.allowed()));
    }
    if (role == null) {
      role = Optional.empty();
    }
    role.ifPresent(r -> {
      if (r.isBlank()) {
        errors.add(new SettingError(ClusterKeys.path(ClusterKeys.ROLE), r, ClusterKeys.ROLE.allowed()));
      }
    });
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  private static void check(List<SettingError> errors, Setting setting, Duration value) {
    setting.check(errors, ClusterKeys.path(setting), value);
  }

  /**
   * Read and validate {@code commitlane.cluster} from a config that includes the reference.conf
   * defaults (a missing key is an error). Values that cannot be read are reported first, then the
   * ranges the record's constructor checks, each key once.
   */
  public static ClusterSettings fromConfig(Config config) {
    ConfigSection c = new ConfigSection(config, ROOT);
    Path dataDir = null;
    String dir = c.string(key(c, ClusterKeys.DATA_DIR), null, "must be a string");
    if (dir != null && !dir.isEmpty()) { // empty: a node that hosts no databases (checked by DatabaseSharding.init)
      try {
        dataDir = Path.of(dir).toAbsolutePath().normalize();
      } catch (InvalidPathException e) {
        c.error(key(c, ClusterKeys.DATA_DIR), dir, "must be a valid path: " + e.getMessage());
      }
    }
    Duration ask = c.duration(key(c, ClusterKeys.ASK_TIMEOUT), null);
    Duration retry = c.duration(key(c, ClusterKeys.OPEN_RETRY_INTERVAL), null);
    Duration openTimeout = c.duration(key(c, ClusterKeys.OPEN_TIMEOUT), null);
    int buffer = whole(c, ClusterKeys.OPEN_BUFFER);
    String idleKey = key(c, ClusterKeys.PASSIVATE_IDLE_AFTER);
    Optional<Duration> idle = ClusterKeys.PASSIVATE_IDLE_AFTER.isOff(c.raw(idleKey))
        ? Optional.empty()
        : Optional.ofNullable(c.duration(idleKey, null));
    int retries = whole(c, ClusterKeys.CONFLICT_RETRIES);
    String dispatcher = c.string(key(c, ClusterKeys.ENTITY_DISPATCHER), null, ClusterKeys.ENTITY_DISPATCHER.allowed());
    // The value stands in for one that could not be read (reported); it is never returned.
    boolean requireSbr = c.bool(key(c, ClusterKeys.REQUIRE_SPLIT_BRAIN_RESOLVER), true);
    String roleName = c.string(key(c, ClusterKeys.ROLE), null, "must be a string");
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

  private static String key(ConfigSection c, Setting setting) {
    return c.relative(setting.key());
  }

  /**
   * An integer setting, checked against its definition as it is read; a value that cannot be
   * read (reported) gives the definition's minimum in its place, never returned.
   */
  private static int whole(ConfigSection c, Setting setting) {
    return c.intIn(key(c, setting), (int) setting.min(), (int) setting.max(), (int) setting.min());
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
}
