package io.commitlane.actors.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.InvalidSettingsException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** commitlane.stream { ... }: the reference defaults are the code's defaults; bad and unknown keys are refused by full path. */
class StreamSettingsTest {
  private static Config with(String hocon) {
    return ConfigFactory.parseString(hocon).withFallback(ConfigFactory.defaultReference()).resolve();
  }

  @Test
  void theReferenceConfigGivesTheDefaults() {
    Config reference = ConfigFactory.defaultReference();
    assertEquals(IngestSettings.defaults(), IngestSettings.fromConfig(reference));
    assertEquals(CommitFlowSettings.defaults(), CommitFlowSettings.fromConfig(reference));
    PipelineSettings.fromConfig(reference); // the database settings accept the stream section beside them
    assertEquals(ConflictRetry.defaults(), IngestSettings.defaults().conflictRetry(), "ConflictRetry.defaults() and reference.conf differ");
    assertEquals(ConflictRetry.defaults(), CommitFlowSettings.defaults().conflictRetry(),
        "ConflictRetry.defaults() and reference.conf differ");
  }

  @Test
  void aBackoffMaxBelowItsMinIsRefusedWithTheRangeItHas() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> CommitFlowSettings.fromConfig(with("""
        commitlane.stream.commit-flow { conflict-retry.backoff-min = 10 ms, conflict-retry.backoff-max = 5 ms }
        """)));
    assertEquals(List.of("commitlane.stream.commit-flow.conflict-retry.backoff-max"), e.fields());
    assertTrue(e.getMessage().contains("must be a duration in backoff-min..1 minute"), e.getMessage());
  }

  @Test
  void aMissingKeyIsAnErrorNotAFallback() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> IngestSettings.fromConfig(
        ConfigFactory.defaultReference().withoutPath("commitlane.stream.ingest.linger")));
    assertEquals(List.of("commitlane.stream.ingest.linger"), e.fields());
    assertTrue(e.getMessage().contains("must be a duration in 0..1 hour"), e.getMessage());
  }

  @Test
  void valuesAreRead() {
    IngestSettings s = IngestSettings.fromConfig(with("""
        commitlane.stream.ingest { max-records = 500, max-bytes = 1 MiB, linger = 5 ms, parallelism = 2, failure-mode = emit,
          conflict-retry.max-attempts = 2, conflict-retry.backoff-min = 0 ms, conflict-retry.backoff-max = 0 ms }
        """));
    assertEquals(new IngestSettings(500, 1L << 20, Duration.ofMillis(5), 2, new ConflictRetry(2, new Backoff(Duration.ZERO, Duration.ZERO, 0.2)), FailureMode.EMIT), s);
    CommitFlowSettings f = CommitFlowSettings.fromConfig(with("commitlane.stream.commit-flow { parallelism = 64, failure-mode = fail-stream }"));
    assertEquals(CommitFlowSettings.defaults().withParallelism(64).withFailureMode(FailureMode.FAIL_STREAM), f);
  }

  @Test
  void everyBadOrUnknownKeyIsNamedByItsFullPath() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> IngestSettings.fromConfig(with("""
        commitlane.stream.ingest { max-records = 0, max-bytes = lots, linger = 2 hours, parallelism = 65, failure-mode = drop,
          conflict-retry.backoff-random-factor = 2, paralelism = 2 }
        """)));
    assertEquals(List.of("commitlane.stream.ingest.paralelism", "commitlane.stream.ingest.max-bytes",
        "commitlane.stream.ingest.max-records", "commitlane.stream.ingest.linger", "commitlane.stream.ingest.parallelism",
        "commitlane.stream.ingest.conflict-retry.backoff-random-factor", "commitlane.stream.ingest.failure-mode"), e.fields());
    assertTrue(e.getMessage().contains("must be an integer in 1..64"), e.getMessage());
    assertTrue(e.getMessage().contains("is not a setting; the nearest known key is commitlane.stream.ingest.parallelism"),
        "a misspelt key gets the nearest known one: " + e.getMessage());
    InvalidSettingsException f = assertThrows(InvalidSettingsException.class,
        () -> CommitFlowSettings.fromConfig(with("commitlane.stream.commit-flow { parallelism = 5000, admission-backoff = 1 ms }")));
    assertEquals(List.of("commitlane.stream.commit-flow.admission-backoff", "commitlane.stream.commit-flow.parallelism"), f.fields());
    assertTrue(f.getMessage().contains("1..4096"), f.getMessage());
  }

  @Test
  void aFractionIsRefusedWhereAWholeNumberIsExpected() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> IngestSettings.fromConfig(with("""
        commitlane.stream.ingest { parallelism = 4.5, conflict-retry.max-attempts = 2.5 }
        """)));
    assertEquals(List.of("commitlane.stream.ingest.parallelism", "commitlane.stream.ingest.conflict-retry.max-attempts"), e.fields());
    assertTrue(e.getMessage().contains("commitlane.stream.ingest.parallelism = 4.5: must be an integer"), e.getMessage());
    assertEquals(4, IngestSettings.fromConfig(with("commitlane.stream.ingest.parallelism = \"4\"")).parallelism());
  }
}
