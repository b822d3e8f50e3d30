package io.commitlane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.PipelineOverrides;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.harness.Variant;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Bad input: exit code 2 and a message that names the flag; nothing runs. */
class CliUsageTest {
  private record Result(int code, String err) {}

  private static Result run(String... args) {
    CommandLine cli = Main.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err, true));
    cli.setOut(new PrintWriter(new StringWriter(), true));
    return new Result(cli.execute(args), err.toString());
  }

  @ParameterizedTest(name = "{0} -> names {1}")
  @CsvSource(delimiter = '|', value = {
      "compare --variants nonsense                         | --variants",
      "compare --variants threads[occ-validation=sometimes] | --variants threads[occ-validation=sometimes]",
      "compare --variants threads[no-such-setting=1]        | commitlane.no-such-setting",
      "compare --variants optimistic[commit-threads=1]      | --variants",
      "compare --variants optimistic-async[wal=on]          | --variants",
      "compare --variants threads,threads                   | --variants",
      "compare --runs 0                                     | --runs",
      "compare --seconds -1                                 | --seconds",
      "compare --loads 4by64                                | --loads",
      "compare --wal maybe                                  | --wal",
      "compare --concurrency 0                              | --concurrency",
      "compare --loads 256x1 --concurrency 100              | --concurrency",
      "compare --occ-lock-buckets 3                         | --occ-lock-buckets",
      "compare --no-such-flag                               | --no-such-flag",
      "bench --scenario nope                                | --scenario",
      "bench --workers 0                                    | --workers",
      "bench --mode sideways                                | --mode",
      "bench --mode legacy                                  | --mode: unknown mode 'legacy'",
      "bench --occ-validation sometimes                     | --occ-validation",
      "bench --scenario txlog --mode legacy                 | --mode",
      "bench --durability sometimes                         | --durability",
      "bench --jfr /no/such/directory/bench.jfr             | --jfr",
      "storage --threads 0                                  | --threads",
      "pipeline --concurrency 0                             | --concurrency",
      "pipeline --variants optimistic-sync                  | --variants",
      "txlog --durability sometimes                         | --durability",
      "memory --busy 4by64                                  | --busy",
      "ingest --rows sink,fairnes                           | --rows: unknown row 'fairnes'; known: sink, sink-ordered, flow, raw, matrix, fairness",
      "cluster failover --events kill,melt                  | --events",
      "cluster failover --hosts 3 --events kill,freeze      | --events",
      "cluster failover --profiles slow                     | --profiles",
      "cluster failover --ids maybe                         | --ids",
      "cluster node --port 2551 --client-only               | --client-only needs --role",
      "cluster node --port 2551                             | --data-dir",
      "reads --rows get-random,nope                         | --rows: unknown row 'nope'",
      "reads --peers commitlane,sqlite                      | --peers: unknown peer 'sqlite'",
      "reads --keys 10                                      | --keys",
      "inspect                                              | <directory>",
      "db                                                   | name a subcommand: stats, compact",
      "db stats                                             | DIR",
      "db stats /no/such/database                           | not a RocksDB database directory",
      "db stats /tmp /tmp                                   | Unmatched argument",
      "db compact                                           | DIR",
      "db compact /no/such/database                         | DIR: no database at /no/such/database",
      "db compact /no/such/database --from 0xZZ             | --from",
      "db compact /no/such/database --no-such-flag          | --no-such-flag",
      "db nonsense                                          | nonsense",
      "backup list                                          | --backups",
      "backup restore --backups b --id 1                    | --target",
      "backup verify --backups b --id one                   | --id",
      "backup purge --backups b --keep -1                   | --keep",
      "backup create --backups b --db /no/such/database     | CURRENT",
      "backup frobnicate                                    | frobnicate",
      "strain                                               | --dir",
      "strain --dir d --modes sideways                      | --modes: unknown mode 'sideways'",
      "strain --dir d --size-gb 0                           | --size-gb",
      "strain --dir d --concurrency 100000                  | --concurrency",
      "scale                                                | --dir",
      "scale --dir d --keys 1Q                              | --keys",
      "scale --dir d --value-sizes 0                        | --value-sizes",
      "scale --dir d --seconds 0                            | --seconds",
      "replication --parts throughput,nonsense              | --parts",
      "persistence --peers commitlane,sqlite                | --peers: sqlite is not a peer",
      "persistence --loads persist-1,nope                   | --loads",
      "persistence --one-events 1                           | --one-events",
      "replication --failover-trials 0                      | --failover-trials",
      "replication --catch-up-in-flight 500                 | --catch-up-in-flight",
      "replication --snapshot-every 10                      | --snapshot-every",
      "replication --log-segment-kib 1                      | --log-segment-kib",
      "replication --loads 1x1,9x9                          | --loads",
      "replication --peers etcd,consul                      | --peers",
      "replication --peers none,etcd                        | --peers: none runs the replicated variants alone"})
  void badInputExitsTwoNamingTheFlag(String args, String named) {
    Result r = run(args.trim().split("\\s+"));
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().contains(named.trim()), "expected '" + named.trim() + "' in: " + r.err());
  }

  /** A setting the configuration does not have is refused with the flag that asked for it, never ignored. */
  @Test
  void aSettingThisBuildLacksIsAUsageErrorNamingTheFlagAndTheSetting() {
    Config without = BenchSystem.config().withoutPath("commitlane.write-groups").withoutPath("commitlane.txlog.append");

    Checks.UsageException groups = assertThrows(Checks.UsageException.class,
        () -> PipelineOverrides.none().writeGroups("--write-groups", true).resolve(without));
    assertEquals("--write-groups: this build has no setting commitlane.write-groups.enabled", groups.getMessage());

    Checks.UsageException leaderless = assertThrows(Checks.UsageException.class,
        () -> PipelineOverrides.none().mode("--mode", "leaderless").resolve(without));
    assertEquals("--mode: this build has no setting commitlane.txlog.append", leaderless.getMessage());
  }

  @Test
  void overridesReachTheSettingsAndVariantsWinOverFlags() {
    Config config = BenchSystem.config();
    var flags = PipelineOverrides.none().with("--occ-validation", "occ-validation", "serial").with("--commit-threads", "commit-threads", "3");
    var variant = Variant.parse("--variants", "legacy[commit-threads=1;occ-lock-buckets=1024]");

    var settings = flags.plus(variant.overrides()).resolve(config);

    assertEquals(Variant.Kind.LEGACY, variant.kind());
    assertEquals(1, settings.commitThreads());
    assertEquals(1024, settings.storage().occLockBuckets());
    assertEquals("SERIAL", settings.storage().occValidation().name());
    assertEquals("commitlane legacy [commit-threads=1, occ-lock-buckets=1024]", variant.label());
  }

  /** The mode names come from the build's PipelineMode: a mode added there is a variant without a change in the benchmarks. */
  @Test
  void everyPipelineModeOfThisBuildIsAVariant() {
    for (io.commitlane.actors.PipelineMode mode : io.commitlane.actors.PipelineMode.values()) {
      Variant v = Variant.parse("--variants", mode.settingName());
      assertEquals(Variant.Kind.PIPELINE, v.kind(), mode.settingName());
      assertEquals(mode, v.overrides().resolve(BenchSystem.config()).mode());
      assertEquals("commitlane " + mode.settingName(), v.label());
    }
  }
}
