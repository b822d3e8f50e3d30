package io.commitlane.bench.persistence;

import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.DirOption;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.report.MachineInfo;
import io.commitlane.bench.report.ResultsDirectory;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * commitlane's Pekko Persistence plugins against the plugins Pekko users run today, in one run, rotated: Pekko's
 * LevelDB journal, pekko-persistence-jdbc on embedded H2 (WRITE_DELAY=0, and H2's default, which does not survive a
 * kill), pekko-persistence-jdbc on a local PostgreSQL server this command starts and stops itself, and commitlane's
 * plugins on a three-voter replicated database on loopback (every replica in this JVM: {@link PersistenceReplicaHosts}).
 */
@Command(name = "persistence", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Pekko Persistence journals in one run, rotated per round: commitlane (process and fsync durability),",
        "Pekko's LevelDB journal, pekko-persistence-jdbc on H2 (file; WRITE_DELAY=0 and H2's default) and on a local PostgreSQL server",
        "(started with initdb/pg_ctl in a temporary directory on a loopback port when they are installed; else reported as not run),",
        "and commitlane's plugins on a replicated database (commitlane-replicated: three voters on loopback, all in this JVM,",
        "entities on one node; replicas in processes of their own would be fairer).",
        "Loads (--loads): persist-1, persist-100, persist-10000 (entities persisting 100-byte events, events/s, p50/p99 from persist to",
        "its handler, a default-dispatcher probe), persist-all (100 entities, persistAll batches of 10), recover-one (one entity",
        "with --one-events events), recover-many (--many-entities x --many-events), events-by-tag (currentEventsByTag over the",
        "recover-many events), state-100 (durable-state upserts from 100 entities). With --warmup > 0 a recovery runs once",
        "unmeasured (a system of its own) before the measured ones: --recover-repeats per round, each in a new actor system.",
        "Prints Markdown tables with medians [ranges] and ratios in the same run; writes persistence.md and persistence.json."})
public final class PersistenceBench implements Callable<Integer> {
  static final List<String> LOADS = List.of("persist-1", "persist-100", "persist-10000", "persist-all", "recover-one", "recover-many",
      "events-by-tag", "state-100");

  @Mixin
  TimingOptions timing = new TimingOptions(3, 2, 5);

  @Option(names = "--peers", split = ",", defaultValue = "commitlane,commitlane-fsync,leveldb,h2,h2-default,postgres,commitlane-replicated",
      description = "Journals to run. Default: ${DEFAULT-VALUE}")
  List<String> peers;

  @Option(names = "--loads", split = ",", defaultValue = "persist-1,persist-100,persist-10000,persist-all,recover-one,recover-many,"
      + "events-by-tag,state-100", description = "Loads to run, in this order. Default: ${DEFAULT-VALUE}")
  List<String> loads;

  @Option(names = "--one-events", defaultValue = "10000", description = "Events of the one entity recover-one recovers. Default: ${DEFAULT-VALUE}")
  int oneEvents;

  @Option(names = "--many-entities", defaultValue = "10000", description = "Entities recover-many recovers. Default: ${DEFAULT-VALUE}")
  int manyEntities;

  @Option(names = "--many-events", defaultValue = "100",
      description = "Events of each of those entities (events-by-tag reads them all). Default: ${DEFAULT-VALUE}")
  int manyEvents;

  @Option(names = "--recover-repeats", defaultValue = "5",
      description = "Recoveries per round of recover-one and recover-many, each in a new actor system; the table gives the median"
          + " and range over all of them. Default: ${DEFAULT-VALUE}")
  int recoverRepeats;

  @Mixin
  DirOption dir = new DirOption();

  @Option(names = "--out", description = "Directory for the result files. Default: ./commitlane-results/<date-time>")
  Path out;

  @Override
  public Integer call() throws Exception {
    timing.validate();
    loads.forEach(l -> Checks.oneOf("--loads", l, LOADS));
    List<PersistencePeer> chosen = new ArrayList<>();
    peers.forEach(p -> chosen.add(PersistencePeer.of(p)));
    Checks.range("--one-events", oneEvents, 100, 100_000_000);
    Checks.range("--many-entities", manyEntities, 1, 10_000_000);
    Checks.range("--many-events", manyEvents, 1, 100_000);
    Checks.range("--recover-repeats", recoverRepeats, 1, 1000);
    Path outDir = ResultsDirectory.create(out);
    PrintStream stdout = System.out;
    Path root = dir.root("commitlane-persistence-bench-");
    Map<PersistencePeer, String> notRun = new EnumMap<>(PersistencePeer.class);
    PostgresCluster postgres = null;
    try {
      if (chosen.contains(PersistencePeer.POSTGRES)) {
        Path bin = PostgresCluster.binaries();
        if (bin == null) {
          notRun.put(PersistencePeer.POSTGRES, "initdb/pg_ctl are not installed (Debian: apt-get install postgresql)");
        } else {
          try {
            postgres = PostgresCluster.start(bin, root.resolve("postgres"));
          } catch (Exception e) {
            notRun.put(PersistencePeer.POSTGRES, "the cluster did not start: " + e.getMessage());
          }
        }
      }
      chosen.removeIf(notRun::containsKey);
      stdout.printf(Locale.ROOT, "persistence: %d round(s), loads %s, in %s%n", timing.runs, String.join(", ", loads), root);
      stdout.printf(Locale.ROOT, "  machine: %s%n", MachineInfo.current().describe());
      for (PersistencePeer p : chosen) {
        stdout.printf(Locale.ROOT, "  %-17s %s%n", p.id, p.durability);
      }
      notRun.forEach((p, why) -> stdout.printf(Locale.ROOT, "  %-17s not run: %s%n", p.id, why));

      Map<String, Map<PersistencePeer, List<PersistenceLoads.Result>>> results = new LinkedHashMap<>();
      int measurement = 0;
      for (String load : loads) {
        stdout.printf(Locale.ROOT, "%n== %s%n", load);
        for (int round = 0; round < timing.runs; round++) {
          List<PersistencePeer> order = new ArrayList<>(chosen);
          Collections.rotate(order, -round);
          for (PersistencePeer peer : order) {
            if (load.equals("state-100") && !peer.hasDurableState) {
              continue;
            }
            Path d = Files.createDirectories(root.resolve("m" + (++measurement)));
            List<PersistenceLoads.Result> r;
            PersistenceReplicaHosts replicas = null;
            try {
              com.typesafe.config.Config config;
              if (peer == PersistencePeer.COMMITLANE_REPLICATED) {
                replicas = PersistenceReplicaHosts.start(d.resolve("replicas"));
                config = replicas.config();
              } else {
                config = peer.config(d, postgres == null ? null : postgres.newDatabase());
              }
              r = run(load, new PersistenceLoads(config, timing.warmup, timing.seconds), peer);
            } catch (Exception e) {
              r = List.of(new PersistenceLoads.Result(Double.NaN, "", 0, 0, 0, "failed: " + e));
            } finally {
              if (replicas != null) {
                replicas.close();
              }
            }
            ContentionRunner.deleteRecursively(d);
            results.computeIfAbsent(load, k -> new EnumMap<>(PersistencePeer.class)).computeIfAbsent(peer, k -> new ArrayList<>()).addAll(r);
            stdout.printf(Locale.ROOT, "  round %d %-17s %s%n", round + 1, peer.id, describe(r));
          }
        }
      }
      PersistenceReport report = new PersistenceReport(results, chosen, notRun, timing, this);
      stdout.println();
      stdout.print(report.markdown());
      Files.writeString(outDir.resolve("persistence.md"), report.markdown(), StandardCharsets.UTF_8);
      Files.writeString(outDir.resolve("persistence.json"), report.json(), StandardCharsets.UTF_8);
      stdout.println("results: " + outDir.toAbsolutePath());
      return 0;
    } finally {
      if (postgres != null) {
        postgres.close();
      }
      dir.cleanUp(root);
    }
  }

  /** One round of {@code load} on {@code peer}: one result, or one per repetition of a recovery. */
  private List<PersistenceLoads.Result> run(String load, PersistenceLoads l, PersistencePeer peer) throws Exception {
    return switch (load) {
      case "persist-1" -> List.of(l.persist(1, 1));
      case "persist-100" -> List.of(l.persist(100, 1));
      case "persist-10000" -> List.of(l.persist(10_000, 1));
      case "persist-all" -> List.of(l.persist(100, 10));
      case "recover-one" -> {
        l.populate("one", 1, oneEvents, false);
        yield l.recover("one", 1, oneEvents, recoverRepeats);
      }
      case "recover-many" -> {
        l.populate("many", manyEntities, manyEvents, false);
        yield l.recover("many", manyEntities, manyEvents, recoverRepeats);
      }
      case "events-by-tag" -> {
        l.populate("tagged", manyEntities, manyEvents, true);
        yield List.of(l.eventsByTag(peer.readJournal(), (long) manyEntities * manyEvents));
      }
      case "state-100" -> List.of(l.upserts(100));
      default -> throw new IllegalArgumentException(load);
    };
  }

  /** A round's line: its one result, or the median of its repetitions with their range. */
  static String describe(List<PersistenceLoads.Result> rs) {
    if (rs.size() == 1 || Double.isNaN(PersistenceReport.median(rs, PersistenceLoads.Result::value))) {
      return describe(rs.get(0));
    }
    double median = PersistenceReport.median(rs, PersistenceLoads.Result::value);
    double min = rs.stream().mapToDouble(PersistenceLoads.Result::value).min().orElse(Double.NaN);
    double max = rs.stream().mapToDouble(PersistenceLoads.Result::value).max().orElse(Double.NaN);
    return String.format(Locale.ROOT, "%,.0f %s (median of %d recoveries, each in a new actor system: %.1f [%.1f-%.1f]; process CPU"
        + " mean %.1f ms)", median, rs.get(0).unit(), rs.size(), median, min, max, PersistenceReport.meanCpu(rs));
  }

  static String describe(PersistenceLoads.Result r) {
    if (Double.isNaN(r.value())) {
      return r.note();
    }
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%,.0f %s", r.value(), r.unit()));
    if (r.p50Micros() > 0) {
      s.append(String.format(Locale.ROOT, ", p50 %.2f ms, p99 %.2f ms", r.p50Micros() / 1e3, r.p99Micros() / 1e3));
    }
    if (r.probeP99Micros() > 0) {
      s.append(String.format(Locale.ROOT, ", default-dispatcher probe p99 %.2f ms", r.probeP99Micros() / 1e3));
    }
    if (!r.note().isEmpty()) {
      s.append(" (").append(r.note()).append(')');
    }
    return s.toString();
  }

  static String now() {
    return ZonedDateTime.now().toString();
  }
}
