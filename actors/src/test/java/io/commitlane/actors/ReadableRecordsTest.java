package io.commitlane.actors;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.ConflictCause;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.storage.KeyValue;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** What a first program prints: keys and values as text or hex, never {@code [B@6e41a105}; stats as one line. */
class ReadableRecordsTest {
  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void recordsOfBytesPrintTheirKeysAndValues() {
    assertEquals("Expectation[\"seat/12\" = \"ann\"]", Expectation.value(b("seat/12"), b("ann")).toString());
    assertEquals("Expectation[seats \"seat/12\" absent]", Expectation.absent("seats", b("seat/12")).toString());
    assertEquals("Key[0x0001]", Key.of(new byte[] {0, 1}).toString());
    assertEquals("Mutation[put \"k\" = \"v\"]", Mutation.put(b("k"), b("v")).toString());
    assertEquals("Mutation[remove orders \"k\"]", Mutation.remove("orders", b("k")).toString());
    assertEquals("LogEntries[audit [\"opened\", 0xff]]", LogEntries.of("audit", b("opened"), new byte[] {(byte) 0xff}).toString());
    assertEquals("ChangeRecord[position=42, timestamp=7, transactionId=3, entries=[\"e\"]]",
        new ChangeRecord(42, 7, 3, List.of(b("e"))).toString());
    assertEquals("Values[correlation=1, values=[\"v\", null]]", new Values(1, Arrays.asList(b("v"), null)).toString());
    assertEquals("Conflicted[correlation=2, cause=EXPECTATIONS, actual=[Expectation[\"seat/12\" = \"bob\"]], attempts=1]",
        new Conflicted(2, ConflictCause.EXPECTATIONS, List.of(Expectation.value(b("seat/12"), b("bob"))), 1).toString());
    assertEquals("Page[correlation=3, 2 entries from \"a\" to \"b\", last=true]",
        new Page(3, List.of(new KeyValue(b("a"), b("1")), new KeyValue(b("b"), b("2"))), null, true).toString());
    assertEquals("KeyValue[\"k\" = \"v\"]", new io.commitlane.storage.KeyValue(b("k"), b("v")).toString());
  }

  @Test
  void pipelineStatsPrintAsOneLineSummary() {
    Histogram wait = new Histogram(3);
    wait.recordValue(12_000);
    PipelineStats stats = new PipelineStats(3, 5, 4, 1, 100, 95, 2, 0, 1, 0, wait, new Histogram(3), null, Map.of(),
        new Histogram(3), null, null, 0, Map.of());
    String line = stats.toString();
    assertTrue(line.startsWith("PipelineStats[queue 3, in flight 5, executors 4 (1 idle), admitted 100, committed 95"), line);
    assertTrue(line.contains("queue wait p50 12.0 µs p99 12.0 µs (1)"), line);
    assertFalse(line.contains("\n"), line);
    assertTrue(line.length() < 300, line);
  }
}
