package io.commitlane.bench.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * replication end to end at tiny sizes, in two runs: throughput and failover with the module's
 * settings, then catch-up and the soak with a snapshot every 1,000 entries, so that the catch-up
 * needs a snapshot. Asserts on the figures and files, not on how fast (nor on purges during the
 * soak's few seconds, which depend on the machine's speed).
 */
class ReplicationBenchTest {
  @TempDir
  Path dir;

  @Test
  void throughputAndFailoverReportEveryVariantAndTrial() throws Exception {
    Path out = dir.resolve("out");
    CliRun run = CliRun.of("replication", "--parts", "throughput,failover", "--loads", "1x1,8x8", "--peers", "single-owner", "--runs", "1",
        "--warmup-rounds", "0", "--warmup", "0.5", "--seconds", "1", "--failover-trials", "1", "--out", out.toString());
    assertEquals(0, run.code(), run.out() + run.err());
    for (ThroughputLoad load : List.of(ThroughputLoad.ONE, ThroughputLoad.EIGHT)) {
      for (String v : ReplicationThroughput.variants(load, false, true)) {
        assertTrue(Pattern.compile("\\| " + Pattern.quote(v) + " \\| [0-9.]+k? \\[").matcher(run.out()).find(), v + " in:\n" + run.out());
      }
    }
    List<String> csv = Files.readAllLines(out.resolve("replication.csv"));
    assertEquals(6, csv.size(), "a header and a row per variant: " + csv);
    for (String row : csv.subList(1, csv.size())) {
      String[] cells = row.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1);
      assertEquals(12, cells.length, row);
      double commits = Double.parseDouble(cells[3]);
      double p50 = Double.parseDouble(cells[6]);
      double p99 = Double.parseDouble(cells[7]);
      assertTrue(commits > 0 && p50 > 0 && p99 >= p50, "commits/s and latency: " + row);
      assertEquals(0, Double.parseDouble(cells[4]), "no commit failed: " + row);
      double probeP50 = Double.parseDouble(cells[9]);
      double probeP99 = Double.parseDouble(cells[10]);
      assertTrue(probeP50 > 0 && probeP99 >= probeP50 && Long.parseLong(cells[11]) > 0, "the default-dispatcher probe in every cell: " + row);
    }

    String json = Files.readString(out.resolve("replication.json"));
    assertTrue(json.contains("\"partial\":false") && json.contains("\"failures\":{}"), json);
    assertTrue(!json.contains("\"etcd\":") && !run.out().contains("etcd peer"), "etcd was not asked for: " + run.out());
    assertEquals(1, CliRun.occurrences(json, "\"firstAckSeconds\":"), json);
    double elected = number(json, "electedSeconds");
    double firstAck = number(json, "firstAckSeconds");
    assertTrue(elected > 0 && firstAck > 0, "a new leader and an acknowledged commit after the stop: " + json);
    assertNotEquals(string(json, "stopped"), string(json, "newLeader"), json);
    assertTrue(number(json, "newTerm") > number(json, "oldTerm"), json);
    assertTrue(run.out().contains("Failover over 1 trial: first acknowledged commit after") && run.out().contains("47-50 s"), run.out());
    assertTrue(Files.readString(out.resolve("replication.md")).startsWith("```bash\n./commitlane replication --parts throughput,failover"));
  }

  @Test
  void catchUpAndSoakReportHowTheReplicaCaughtUpAndTheLogSize() throws Exception {
    Path out = dir.resolve("out");
    // Few commits in flight and a snapshot every 100 entries: commits in flight together share Raft
    // entries, and the leader must still snapshot and purge past what the stopped follower holds.
    CliRun run = CliRun.of("replication", "--parts", "catch-up,soak", "--catch-up-commits", "1500", "--catch-up-in-flight", "8",
        "--soak-seconds", "4", "--sample-seconds", "1", "--snapshot-every", "100", "--log-segment-kib", "64", "--out", out.toString());
    assertEquals(0, run.code(), run.out() + run.err());
    String json = Files.readString(out.resolve("replication.json"));
    assertEquals(1500, number(json, "commits"), json);
    assertTrue(number(json, "caughtUpSeconds") > 0, json);
    assertTrue(number(json, "afterAppliedIndex") >= number(json, "leaderApplied"), "applied as far as the leader: " + json);
    // 1,500 commits fill more than a snapshot's worth of entries: the leader purged what the follower lacked.
    assertTrue(number(json, "leaderLogStartIndex") > number(json, "matchAtStop") + 1, json);
    assertEquals("snapshot", string(json, "mode"), json);
    assertTrue(number(json, "afterSnapshotIndex") >= number(json, "leaderSnapshotIndex"), json);
    assertTrue(run.out().contains("| 1,500 |") && run.out().contains("How it caught up: snapshot: "), run.out());

    List<String> samples = Files.readAllLines(out.resolve("replication-soak.csv"));
    assertTrue(samples.size() >= 1 + 3 * 5, "a header and a sample per node per second, and one at the start: " + samples.size());
    List<String> nodes = new ArrayList<>();
    Matcher m = Pattern.compile("\\{\"node\":\"(n\\d)\",\"maxBytes\":(\\d+),\"endBytes\":(\\d+),\"maxEntries\":(\\d+),\"endEntries\":(\\d+),"
        + "\"purges\":(\\d+),\"lastSnapshotIndex\":(\\d+),\"bounded\":(true|false)").matcher(json);
    while (m.find()) {
      nodes.add(m.group(1));
      long max = Long.parseLong(m.group(2));
      long end = Long.parseLong(m.group(3));
      assertTrue(end > 0 && max >= end, "log size max and end of " + m.group(1) + ": " + json);
      assertTrue(Long.parseLong(m.group(4)) > 0, "entries in the log of " + m.group(1) + ": " + json);
    }
    assertEquals(List.of("n0", "n1", "n2"), nodes, json);
    Matcher soak = Pattern.compile("\"soak\":\\{\"seconds\":[0-9.]+,\"commits\":(\\d+)").matcher(json);
    assertTrue(soak.find() && Long.parseLong(soak.group(1)) > 0, "the soak's load committed: " + json);
    assertTrue(run.out().contains("### Raft log size under load") && run.out().contains("Bounded means: "), run.out());
  }

  private static double number(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":(-?[0-9.eE+-]+)").matcher(json);
    assertTrue(m.find(), field + " in " + json);
    return Double.parseDouble(m.group(1));
  }

  private static String string(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":\"([^\"]*)\"").matcher(json);
    assertTrue(m.find(), field + " in " + json);
    return m.group(1);
  }
}
