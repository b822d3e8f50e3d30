package io.commitlane.bench.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The replicated peer's goal line: medians of the same run against JDBC on PostgreSQL, at 100 entities only. */
class PersistenceReportTest {
  private static PersistenceLoads.Result rate(double v) {
    return new PersistenceLoads.Result(v, "events/s", 0, 0, 0, "");
  }

  private static Map<PersistencePeer, List<PersistenceLoads.Result>> run(List<PersistenceLoads.Result> replicated,
      List<PersistenceLoads.Result> postgres) {
    Map<PersistencePeer, List<PersistenceLoads.Result>> m = new EnumMap<>(PersistencePeer.class);
    m.put(PersistencePeer.COMMITLANE_REPLICATED, replicated);
    m.put(PersistencePeer.POSTGRES, postgres);
    return m;
  }

  @Test
  void theGoalIsMetAtOrAboveOnceJdbcOnPostgresqlsMedian() {
    String line = PersistenceReport.goal("persist-100", run(List.of(rate(2000), rate(3000)), List.of(rate(2000), rate(2500)))).orElseThrow();
    assertTrue(line.contains(": 1.11x (met;"), line);
    line = PersistenceReport.goal("persist-100", run(List.of(rate(1000)), List.of(rate(2000)))).orElseThrow();
    assertTrue(line.contains(": 0.50x (NOT met;"), line);
  }

  @Test
  void aFailedPeerIsNotMeasuredAndOtherLoadsHaveNoGoalLine() {
    String line = PersistenceReport.goal("persist-100", run(List.of(rate(Double.NaN)), List.of(rate(2000)))).orElseThrow();
    assertTrue(line.contains("not measured"), line);
    assertEquals(java.util.Optional.empty(), PersistenceReport.goal("persist-1", run(List.of(rate(1)), List.of(rate(1)))));
    assertEquals(java.util.Optional.empty(), PersistenceReport.goal("persist-100",
        Map.of(PersistencePeer.POSTGRES, List.of(rate(1)))));
  }
}
