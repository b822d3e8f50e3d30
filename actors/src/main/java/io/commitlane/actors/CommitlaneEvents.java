package io.commitlane.actors;

import java.util.List;
import jdk.jfr.Recording;

/**
 * The names of commitlane's Flight Recorder events, for recordings made in code. The events that
 * happen once per commit are off unless a recording enables them (a recording with the JDK's
 * {@code default} or {@code profile} settings leaves them out); the rare ones (executors starting
 * and stopping, log fsyncs, replay at open, store drops, health changes, a projection's failed batch) are on wherever
 * JFR records. A projection's batches ({@link #PER_BATCH}) are off like the per-commit events.
 */
public final class CommitlaneEvents {
  /** Once per commit, in the order a commit passes them. */
  public static final List<String> PER_COMMIT = List.of(
      "io.commitlane.CommitAdmitted",
      "io.commitlane.CommitDequeued",
      "io.commitlane.CommitValidated",
      "io.commitlane.LogAppended",
      "io.commitlane.CommitWritten",
      "io.commitlane.CommitAcknowledged");

  /** Once per batch of a projection, off unless a recording enables it, like the per-commit events. */
  public static final List<String> PER_BATCH = List.of("io.commitlane.ProjectionBatch");

  /** Lifecycle and log events: a handful per second at most. */
  public static final List<String> OCCASIONAL = List.of(
      "io.commitlane.ExecutorStarted",
      "io.commitlane.ExecutorStopped",
      "io.commitlane.LogSynced",
      "io.commitlane.LogReplayed",
      "io.commitlane.StoreDropped",
      "io.commitlane.HealthChanged",
      "io.commitlane.ProjectionFailed");

  private CommitlaneEvents() {}

  /** Every commitlane event name. */
  public static List<String> all() {
    return java.util.stream.Stream.of(PER_COMMIT, PER_BATCH, OCCASIONAL).flatMap(List::stream).toList();
  }

  /** Enable every commitlane event in {@code recording}, with no duration threshold. */
  public static Recording enableAll(Recording recording) {
    for (String name : all()) {
      recording.enable(name).withoutThreshold();
    }
    return recording;
  }
}
