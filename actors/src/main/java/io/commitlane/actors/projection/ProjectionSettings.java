package io.commitlane.actors.projection;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.actors.internal.config.ProjectionKeys;
import io.commitlane.actors.stream.Backoff;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.internal.settings.Setting;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Settings of a {@link Projection}. Immutable; each {@code with} method returns a validated copy.
 * Each setting is defined once (key, range, doc line: {@code ProjectionKeys}); its default and
 * range are written in {@code commitlane.projection} of {@code reference.conf} only.
 *
 * @param maxBatchRecords records per batch (one transaction), at most.
 * @param maxBatchWait how long a batch that is not full may wait for more records. 0:
 *     a batch is committed as soon as there are records and the previous batch committed, so
 *     batches grow only while commits are in flight. Above 0, a batch is committed once full or
 *     once its first record was read this long ago (as Pekko's {@code groupedWithin}).
 * @param onHandlerFailure what a handler that throws does to the projection: {@link
 *     HandlerFailure#STOP} or {@link HandlerFailure#RETRY}
 * @param restartBackoff the wait before a restart after a failed batch (a handler error under
 *     {@code RETRY}, or a database failure that may pass: no leader, a storage error): min doubling
 *     per restart in a row up to max, stretched by up to the random factor.
 * @param maxRestarts restarts in a row (without a committed batch between them) after which the
 *     projection stops with the error; -1 restarts forever, 0 never restarts.
 * @param conflictBackoff the wait before reading the stored position again after a conflict (another
 *     runner of the projection committed first) or a full commit queue.
 * @param offsetStore the store that holds every projection's position (key: the projection's name,
 *     UTF-8), created by the first projection that runs. It keeps positions away from the
 *     application's keys: it may not be {@code default}.
 * @param dispatcher the Pekko dispatcher the runner, its reads and its handler run on (the handler
 *     may block on reads).
 */
public record ProjectionSettings(int maxBatchRecords, Duration maxBatchWait, HandlerFailure onHandlerFailure,
    Backoff restartBackoff, int maxRestarts, Backoff conflictBackoff, String offsetStore, String dispatcher) {
  /** The section of the actor system's config these settings are read from. */
  public static final String SECTION = "commitlane.projection";

  public ProjectionSettings {
    List<SettingError> errors = new ArrayList<>();
    ProjectionKeys.BATCH_MAX_RECORDS.check(errors, field(ProjectionKeys.BATCH_MAX_RECORDS), maxBatchRecords);
    ProjectionKeys.BATCH_MAX_WAIT.check(errors, field(ProjectionKeys.BATCH_MAX_WAIT), maxBatchWait);
    if (onHandlerFailure == null) {
      errors.add(new SettingError(field(ProjectionKeys.ON_HANDLER_FAILURE), null, "must be STOP or RETRY"));
    }
    checkBackoff(ProjectionKeys.RESTART_BACKOFF, restartBackoff, errors);
    ProjectionKeys.MAX_RESTARTS.check(errors, field(ProjectionKeys.MAX_RESTARTS), maxRestarts);
    checkBackoff(ProjectionKeys.CONFLICT_BACKOFF, conflictBackoff, errors);
    String storeProblem = offsetStoreProblem(offsetStore);
    if (storeProblem != null) {
      errors.add(new SettingError(field(ProjectionKeys.OFFSET_STORE), offsetStore, storeProblem));
    }
    if (dispatcher == null || dispatcher.isBlank()) {
      errors.add(new SettingError(field(ProjectionKeys.DISPATCHER), dispatcher, ProjectionKeys.DISPATCHER.allowed()));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  private static String field(Setting setting) {
    return ProjectionKeys.field(setting);
  }

  /** What is wrong with {@code name} as the offset store ({@link ProjectionKeys#OFFSET_STORE}), or null. */
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

  /** A backoff's bounds (its own constructor has checked min <= max). */
  private static void checkBackoff(ProjectionKeys.BackoffKeys keys, Backoff backoff, List<SettingError> errors) {
    if (backoff == null) {
      errors.add(new SettingError(field(keys.min()), null, "is required"));
      return;
    }
    keys.min().check(errors, field(keys.min()), backoff.min());
    keys.max().check(errors, field(keys.max()), backoff.max());
    keys.randomFactor().check(errors, field(keys.randomFactor()), backoff.randomFactor());
  }

  /** The defaults of {@code reference.conf}'s {@code commitlane.projection}. */
  public static ProjectionSettings defaults() {
    return Defaults.REFERENCE;
  }

  /** Read once, on first use. */
  private static final class Defaults {
    static final ProjectionSettings REFERENCE = fromConfig(ConfigFactory.defaultReference());
  }

  /** {@code commitlane.projection} of the actor system's config. */
  public static ProjectionSettings fromConfig(ActorSystem<?> system) {
    return fromConfig(system.settings().config());
  }

  /**
   * {@code commitlane.projection} of {@code config}, which is expected to include {@code
   * reference.conf} (a missing key is an error). Every key is checked before any is used; an
   * {@link InvalidSettingsException} names each bad or unknown key by its full path and range.
   */
  public static ProjectionSettings fromConfig(Config config) {
    ConfigSection c = new ConfigSection(config, SECTION);
    c.refuseUnknown(ProjectionKeys.ALL);
    Long maxRecords = (Long) c.read(ProjectionKeys.BATCH_MAX_RECORDS);
    Duration maxWait = (Duration) c.read(ProjectionKeys.BATCH_MAX_WAIT);
    HandlerFailure onFailure = c.choice(ProjectionKeys.ON_HANDLER_FAILURE, HandlerFailure.values());
    Object maxRestarts = c.read(ProjectionKeys.MAX_RESTARTS);
    String offsetStore = (String) c.read(ProjectionKeys.OFFSET_STORE);
    if (offsetStore != null && offsetStoreProblem(offsetStore) != null) {
      c.error(field(ProjectionKeys.OFFSET_STORE), offsetStore, offsetStoreProblem(offsetStore));
    }
    String dispatcher = (String) c.read(ProjectionKeys.DISPATCHER);
    Backoff restart = backoff(c, ProjectionKeys.RESTART_BACKOFF);
    Backoff conflict = backoff(c, ProjectionKeys.CONFLICT_BACKOFF);
    c.throwIfInvalid();
    return new ProjectionSettings(maxRecords.intValue(), maxWait, onFailure, restart, wholeNumber(maxRestarts), conflict,
        offsetStore, dispatcher);
  }

  /** An integer setting's value as read: a number, or its special value as written. */
  private static int wholeNumber(Object read) {
    return read instanceof Long n ? n.intValue() : Integer.parseInt(((String) read).trim());
  }

  /** A backoff's keys, each checked through its definition, and max against min; null (reported) if any is not allowed. */
  private static Backoff backoff(ConfigSection c, ProjectionKeys.BackoffKeys keys) {
    Duration min = (Duration) c.read(keys.min());
    Duration max = (Duration) c.read(keys.max());
    Double random = (Double) c.read(keys.randomFactor());
    if (min != null && max != null && max.compareTo(min) < 0) {
      String key = c.relative(keys.max().key());
      c.error(key, c.raw(key), keys.max().allowed());
      return null;
    }
    return min == null || max == null || random == null ? null : new Backoff(min, max, random);
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
