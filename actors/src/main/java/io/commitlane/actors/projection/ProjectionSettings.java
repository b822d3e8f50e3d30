package io.commitlane.actors.projection;

import com.typesafe.config.Config;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.actors.stream.Backoff;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Settings of a {@link Projection}. Immutable; each {@code with} method returns a validated copy.
 * The defaults are those of {@code commitlane.projection} in {@code reference.conf}.
 *
 * @param maxBatchRecords records per batch (one transaction), at most. 1..100,000, default 100.
 * @param maxBatchWait how long a batch that is not full may wait for more records. 0 (the default):
 *     a batch is committed as soon as there are records and the previous batch committed, so
 *     batches grow only while commits are in flight. Above 0, a batch is committed once full or
 *     once its first record was read this long ago (as Pekko's {@code groupedWithin}). 0..1 hour.
 * @param onHandlerFailure what a handler that throws does to the projection: {@link
 *     HandlerFailure#STOP} (default) or {@link HandlerFailure#RETRY}
 * @param restartBackoff the wait before a restart after a failed batch (a handler error under
 *     {@code RETRY}, or a database failure that may pass: no leader, a storage error): min doubling
 *     per restart in a row up to max, stretched by up to the random factor. Default 500 ms..30 s, 0.2.
 * @param maxRestarts restarts in a row (without a committed batch between them) after which the
 *     projection stops with the error; -1 (default) restarts forever, 0 never restarts.
 * @param conflictBackoff the wait before reading the stored position again after a conflict (another
 *     runner of the projection committed first) or a full commit queue. Default 1 ms..100 ms, 0.2.
 * @param offsetStore the store that holds every projection's position (key: the projection's name,
 *     UTF-8), created by the first projection that runs. It keeps positions away from the
 *     application's keys: it may not be {@code default}. Default {@code commitlane-projections}.
 * @param dispatcher the Pekko dispatcher the runner, its reads and its handler run on. Default
 *     {@code pekko.actor.default-blocking-io-dispatcher} (the handler may block on reads).
 */
public record ProjectionSettings(int maxBatchRecords, Duration maxBatchWait, HandlerFailure onHandlerFailure,
    Backoff restartBackoff, int maxRestarts, Backoff conflictBackoff, String offsetStore, String dispatcher) {
  /** The section of the actor system's config these settings are read from. */
  public static final String SECTION = "commitlane.projection";

  private static final Set<String> KEYS = Set.of("batch.max-records", "batch.max-wait", "on-handler-failure",
      "restart-backoff.min", "restart-backoff.max", "restart-backoff.random-factor", "restart-backoff.max-restarts",
      "conflict-backoff.min", "conflict-backoff.max", "conflict-backoff.random-factor", "offset-store", "dispatcher");
  private static final Duration MAX_WAIT = Duration.ofHours(1);
  private static final Duration MAX_BACKOFF = Duration.ofHours(1);

  public ProjectionSettings {
    List<SettingError> errors = new ArrayList<>();
    check("", maxBatchRecords, maxBatchWait, maxRestarts, offsetStore, dispatcher, errors);
    if (onHandlerFailure == null) {
      errors.add(new SettingError("on-handler-failure", null, "must be STOP or RETRY"));
    }
    checkBackoff("restart-backoff.", restartBackoff, errors);
    checkBackoff("conflict-backoff.", conflictBackoff, errors);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  private static void check(String prefix, int maxBatchRecords, Duration maxBatchWait, int maxRestarts, String offsetStore,
      String dispatcher, List<SettingError> errors) {
    if (maxBatchRecords < 1 || maxBatchRecords > 100_000) {
      errors.add(new SettingError(prefix + "batch.max-records", maxBatchRecords, "must be an integer in 1..100000"));
    }
    if (maxBatchWait == null || maxBatchWait.isNegative() || maxBatchWait.compareTo(MAX_WAIT) > 0) {
      errors.add(new SettingError(prefix + "batch.max-wait", maxBatchWait, "must be a duration in 0..1 hour"));
    }
    if (maxRestarts < -1) {
      errors.add(new SettingError(prefix + "restart-backoff.max-restarts", maxRestarts,
          "must be -1 (restart forever), 0 (never) or a number of restarts"));
    }
    String storeProblem = offsetStoreProblem(offsetStore);
    if (storeProblem != null) {
      errors.add(new SettingError(prefix + "offset-store", offsetStore, storeProblem));
    }
    if (dispatcher == null || dispatcher.isBlank()) {
      errors.add(new SettingError(prefix + "dispatcher", dispatcher, "must name a Pekko dispatcher"));
    }
  }

  private static String offsetStoreProblem(String name) {
    if (name == null) {
      return "must be a store name";
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes < 1 || bytes > 255 || name.chars().anyMatch(Character::isISOControl)) {
      return "must be a store name: 1..255 UTF-8 bytes without control characters";
    }
    if (name.equals("default") || name.startsWith("__commitlane")) {
      return "must be a store of its own: not \"default\" (where applications keep their keys), not a name starting with"
          + " \"__commitlane\" (reserved)";
    }
    return null;
  }

  private static void checkBackoff(String prefix, Backoff backoff, List<SettingError> errors) {
    if (backoff == null) {
      errors.add(new SettingError(prefix + "min", null, "is required"));
    } else if (backoff.max().compareTo(MAX_BACKOFF) > 0) {
      errors.add(new SettingError(prefix + "max", backoff.max(), "must be a duration in min..1 hour"));
    }
  }

  /** The built-in defaults (the same as {@code reference.conf}'s). */
  public static ProjectionSettings defaults() {
    return new ProjectionSettings(100, Duration.ZERO, HandlerFailure.STOP,
        new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), 0.2), -1,
        new Backoff(Duration.ofMillis(1), Duration.ofMillis(100), 0.2), "commitlane-projections",
        "pekko.actor.default-blocking-io-dispatcher");
  }

  /** {@code commitlane.projection} of the actor system's config. */
  public static ProjectionSettings fromConfig(ActorSystem<?> system) {
    return fromConfig(system.settings().config());
  }

  /**
   * {@code commitlane.projection} of {@code config}. Every key is checked before any is used; an
   * {@link InvalidSettingsException} names each bad or unknown key by its full path and range.
   */
  public static ProjectionSettings fromConfig(Config config) {
    ConfigSection c = new ConfigSection(config, SECTION);
    c.refuseUnknown(KEYS::contains, key -> "is not a setting; the nearest known key is " + c.path(ConfigSection.nearest(key, KEYS))
        + " (known: " + new TreeSet<>(KEYS) + ")");
    ProjectionSettings d = defaults();
    int maxRecords = c.integer("batch.max-records", d.maxBatchRecords());
    Duration maxWait = c.duration("batch.max-wait", d.maxBatchWait());
    HandlerFailure onFailure = c.oneOf("on-handler-failure", HandlerFailure.values(), d.onHandlerFailure());
    int maxRestarts = c.integer("restart-backoff.max-restarts", d.maxRestarts());
    String offsetStore = c.string("offset-store", d.offsetStore(), "must be a store name");
    String dispatcher = c.string("dispatcher", d.dispatcher(), "must name a Pekko dispatcher");
    List<SettingError> ranges = new ArrayList<>();
    check(SECTION + ".", maxRecords, maxWait, maxRestarts, offsetStore, dispatcher, ranges);
    ranges.forEach(c::error);
    Backoff restart = backoff(c, "restart-backoff", d.restartBackoff());
    Backoff conflict = backoff(c, "conflict-backoff", d.conflictBackoff());
    c.throwIfInvalid();
    return new ProjectionSettings(maxRecords, maxWait, onFailure, restart, maxRestarts, conflict, offsetStore, dispatcher);
  }

  private static Backoff backoff(ConfigSection c, String name, Backoff fallback) {
    Duration min = c.duration(name + ".min", fallback.min());
    Duration max = c.duration(name + ".max", fallback.max());
    double random = c.decimal(name + ".random-factor", fallback.randomFactor());
    boolean ok = true;
    if (min.isNegative() || min.compareTo(MAX_BACKOFF) > 0) {
      c.error(name + ".min", min, "must be a duration in 0..1 hour");
      ok = false;
    }
    if (max.isNegative() || max.compareTo(MAX_BACKOFF) > 0 || max.compareTo(min) < 0) {
      c.error(name + ".max", max, "must be a duration in " + name + ".min..1 hour");
      ok = false;
    }
    if (!(random >= 0 && random <= 1)) {
      c.error(name + ".random-factor", random, "must be a number in 0.0..1.0");
      ok = false;
    }
    return ok ? new Backoff(min, max, random) : fallback;
  }

  public ProjectionSettings withMaxBatchRecords(int maxBatchRecords) {
    return new ProjectionSettings(maxBatchRecords, maxBatchWait, onHandlerFailure, restartBackoff, maxRestarts, conflictBackoff,
        offsetStore, dispatcher);
  }

  public ProjectionSettings withMaxBatchWait(Duration maxBatchWait) {
    return new ProjectionSettings(maxBatchRecords, maxBatchWait, onHandlerFailure, restartBackoff, maxRestarts, conflictBackoff,
        offsetStore, dispatcher);
  }

  public ProjectionSettings withOnHandlerFailure(HandlerFailure onHandlerFailure) {
    return new ProjectionSettings(maxBatchRecords, maxBatchWait, onHandlerFailure, restartBackoff, maxRestarts, conflictBackoff,
        offsetStore, dispatcher);
  }

  /** The restart backoff, and the restarts in a row after which the projection stops (-1: never stops). */
  public ProjectionSettings withRestartBackoff(Backoff restartBackoff, int maxRestarts) {
    return new ProjectionSettings(maxBatchRecords, maxBatchWait, onHandlerFailure, restartBackoff, maxRestarts, conflictBackoff,
        offsetStore, dispatcher);
  }

  public ProjectionSettings withConflictBackoff(Backoff conflictBackoff) {
    return new ProjectionSettings(maxBatchRecords, maxBatchWait, onHandlerFailure, restartBackoff, maxRestarts, conflictBackoff,
        offsetStore, dispatcher);
  }

  public ProjectionSettings withOffsetStore(String offsetStore) {
    return new ProjectionSettings(maxBatchRecords, maxBatchWait, onHandlerFailure, restartBackoff, maxRestarts, conflictBackoff,
        offsetStore, dispatcher);
  }

  public ProjectionSettings withDispatcher(String dispatcher) {
    return new ProjectionSettings(maxBatchRecords, maxBatchWait, onHandlerFailure, restartBackoff, maxRestarts, conflictBackoff,
        offsetStore, dispatcher);
  }
}
