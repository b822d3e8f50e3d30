package io.commitlane.bench.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

/**
 * replication's etcd peer at tiny sizes: without an etcd binary the throughput part measures
 * commitlane alone and says so; with one, etcd's three members run beside the replicas, every
 * load is measured on both with ratios per round, and no etcd process is left afterwards.
 */
class ReplicationEtcdPeerTest {
  @TempDir
  Path dir;

  @Test
  void withoutEtcdTheRunMeasuresCommitlaneAndSaysEtcdIsNotInstalled() throws Exception {
    Path out = dir.resolve("out");
    Path missing = dir.resolve("no-such-dir").resolve("etcd");
    CliRun run = CliRun.of("replication", "--parts", "throughput", "--loads", "1x1", "--peers", "etcd", "--etcd", missing.toString(),
        "--runs", "1", "--warmup-rounds", "0", "--warmup", "0.2", "--seconds", "0.5", "--diagnose", "--out", out.toString());
    assertEquals(0, run.code(), run.out() + run.err());
    String note = "etcd peer: not installed (no executable at " + missing + ")";
    assertTrue(run.out().contains(note) && run.out().contains("apt-get install etcd-server"), run.out());
    assertTrue(Files.readString(out.resolve("replication.md")).contains(note), "the report says it too");
    assertTrue(Files.readString(out.resolve("replication.json")).contains("\"etcd\":\"" + note), "and the JSON");
    List<String> csv = Files.readAllLines(out.resolve("replication.csv"));
    assertEquals(2, csv.size(), "a header and the replicated row: " + csv);
    assertTrue(csv.get(1).contains(ReplicationThroughput.REPLICATED_ONE), csv.get(1));

    // --diagnose: per replicated cell, the threads' CPU by node and role and Ratis's counters per commit (how many depends on the
    // machine: a loaded one may commit nothing in half a second, so only the sections are checked here).
    String diagnosis = Files.readString(out.resolve("replication-diagnosis.md"));
    assertTrue(diagnosis.contains("## " + ThroughputLoad.ONE.label() + ": " + ReplicationThroughput.REPLICATED_ONE + ", round 1"), diagnosis);
    assertTrue(Pattern.compile("\\| \\*\\*all Java threads\\*\\* \\| \\*\\*[0-9.]+\\*\\* \\|").matcher(diagnosis).find(), diagnosis);
    assertTrue(diagnosis.contains("| Ratis metric | per commit | mean ms |"), diagnosis);
  }

  /**
   * Runs a real etcd, so it runs only where the binary is (Debian's etcd-server); the test above
   * covers the run without it. Skipped, never failed, when it is absent: the suite and CI must
   * not need etcd.
   */
  @Test
  @EnabledIf("etcdInstalled")
  void etcdRunsBesideTheReplicasOnEveryLoadAndStopsAfterwards() throws Exception {
    Path out = dir.resolve("out");
    CliRun run = CliRun.of("replication", "--parts", "throughput", "--loads", "1x1,16-keys,conditional", "--peers", "etcd",
        "--runs", "1", "--warmup-rounds", "0", "--warmup", "0.5", "--seconds", "1", "--out", out.toString());
    assertEquals(0, run.code(), run.out() + run.err());
    assertTrue(run.out().contains("etcd peer: etcd Version: ") && run.out().contains("etcd members stopped"), run.out());

    List<String> csv = Files.readAllLines(out.resolve("replication.csv"));
    List<String> variants = List.of(ReplicationThroughput.REPLICATED_ONE, ReplicationThroughput.ETCD_ONE, ReplicationThroughput.REPLICATED_EIGHT,
        ReplicationThroughput.ETCD_EIGHT, ReplicationThroughput.REPLICATED_RMW, ReplicationThroughput.REPLICATED_EXPECTING_RMW,
        ReplicationThroughput.ETCD_RMW);
    assertEquals(1 + variants.size(), csv.size(), "a header and a row per variant: " + csv);
    for (String v : variants) {
      String row = csv.stream().filter(r -> r.contains("\"" + v + "\"")).findFirst().orElseThrow(() -> new AssertionError(v + " in " + csv));
      String[] cells = row.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1);
      assertTrue(Double.parseDouble(cells[3]) > 0, "commits/s: " + row);
      assertEquals(0, Double.parseDouble(cells[4]), "no write failed: " + row);
      assertTrue(Double.parseDouble(cells[8]) > 0, "CPU per commit: " + row);
      assertTrue(Double.parseDouble(cells[10]) > 0 && Long.parseLong(cells[11]) > 0, "the default-dispatcher probe, etcd's cells too: " + row);
    }
    // Each replicated variant has its probe goal line, etcd's probe in the same load beside it.
    for (String v : List.of(ReplicationThroughput.REPLICATED_ONE, ReplicationThroughput.REPLICATED_EIGHT, ReplicationThroughput.REPLICATED_RMW,
        ReplicationThroughput.REPLICATED_EXPECTING_RMW)) {
      assertTrue(Pattern.compile(Pattern.quote(v + ": default-dispatcher probe p99 at most 1 ms during the load: ") + "[0-9.]+ \\[.*"
          + Pattern.quote("(etcd in the same load, for reference: ") + "[0-9.]+ \\[").matcher(run.out()).find(), v + ": " + run.out());
    }
    // Each replicated variant is compared with etcd's in its round: a ratio in the "x etcd" column.
    Matcher ratio = Pattern.compile("\\| " + Pattern.quote(ReplicationThroughput.REPLICATED_EIGHT) + " \\| [^|]+ \\| [0-9.]+x \\[").matcher(run.out());
    assertTrue(ratio.find(), run.out());
    assertTrue(run.out().contains(ThroughputLoad.SIXTEEN_KEYS.label() + ": commits/s, commitlane/etcd "), "the 16-key goal: " + run.out());
    assertTrue(run.out().contains(ThroughputLoad.ONE.label() + ": p50 latency, commitlane/etcd "), run.out());
    assertTrue(Files.readString(out.resolve("replication.json")).contains("\"goals\":["), "goals in the JSON");
    assertTrue(Files.readString(out.resolve("replication.json")).contains("\"dispatcherProbeGoals\":["), "the probe's goals in the JSON");

    List<String> left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
        .map(h -> h.info().command().orElse("?")).filter(c -> c.endsWith("etcd") || c.endsWith("sh")).toList();
    assertEquals(List.of(), left, "no etcd member or watchdog outlives the run");
  }

  static boolean etcdInstalled() {
    return EtcdCluster.find("etcd").isPresent();
  }
}
