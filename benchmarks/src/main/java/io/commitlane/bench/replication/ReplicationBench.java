package io.commitlane.bench.replication;

import io.commitlane.bench.Main;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.DirOption;
import io.commitlane.bench.cli.ProgressOption;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.cli.TypedCommand;
import io.commitlane.bench.cluster.LoopbackCluster;
import io.commitlane.bench.cluster.ShardedWriteLoad;
import io.commitlane.bench.compare.CompareCommand;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.ProgressLine;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.report.MachineInfo;
import io.commitlane.bench.report.ResultsDirectory;
import io.commitlane.bench.report.Units;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.storage.InvalidSettingsException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.typed.ActorSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Replicated databases (three Raft voters in this JVM, on loopback) measured in four parts: commits/s
 * and latency against today's single-owner cluster under the same loads ({@link
 * ReplicationThroughput}), the time from stopping the leader to the next acknowledged commit
 * ({@link ReplicationFailover}), the catch-up of a replica many commits behind ({@link
 * ReplicationCatchUp}), and the Raft log's size under a sustained load ({@link ReplicationSoak}).
 * Each part runs on replicas of its own, in a fresh directory; a part that fails is reported and
 * the next one runs.
 */
@Command(name = "replication", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Raft-replicated databases (3 voters in this JVM, loopback) in four parts, chosen with --parts:",
        "throughput: commits/s, p50/p99 and CPU per commit of the loads chosen with --loads (100-byte values, random keys of 1M):"
            + " 1 client x 1 commit in flight through a follower, 8 clients x 8 and x 32 in flight, 4 clients x 8 in flight of 16-key commits,"
            + " and a read-modify-write of one key through a follower; against etcd (3 members on loopback, when installed) and, for the"
            + " one-key loads of 1 x 1 and 8 x 8, one database of the single-owner Pekko cluster (3 nodes in this JVM); variants rotated"
            + " per round, ratios to etcd per round; in every cell a default-dispatcher probe (a trivial task every 1 ms on the default"
            + " dispatcher of a Pekko actor system in this JVM, beside the replicas: its wait's p50/p99; goal p99 at most 1 ms for the"
            + " replicated variants, etcd's for reference);",
        "failover: the leader's node stops (close()) after --warmup s (at least 1) of load; time to the first acknowledged commit,"
            + " --failover-trials times (goal: 2 s);",
        "catch-up: a follower stops, --catch-up-commits are committed, it starts again; time until it applied as far as the leader, and"
            + " whether by log replay or snapshot;",
        "soak: the Raft log's size on every node under a sustained load for --soak-seconds (max and end; bounded by snapshots).",
        "Prints Markdown tables and writes replication.md, replication.json, replication.csv and replication-soak.csv.",
        "Ctrl-C stops the run and reports what was measured, marked partial."})
public final class ReplicationBench implements Callable<Integer> {
  static final List<String> PARTS = List.of("throughput", "failover", "catch-up", "soak");
  static final List<String> PEERS = List.of("etcd", "single-owner", "none");
  /** The replication module's defaults, for the options that change them. */
  private static final ReplicaNodeSettings DEFAULTS = ReplicaNodeSettings.of(new ReplicaPeer("defaults", "127.0.0.1", 1), Path.of("."));

  @Mixin
  TimingOptions timing = new TimingOptions(3, 2, 5);

  @Option(names = "--warmup-rounds", defaultValue = "1",
      description = "Throughput rounds run first and not counted (JIT and connections of a fresh JVM). Default: ${DEFAULT-VALUE}")
  int warmupRounds;

  @Option(names = "--parts", split = ",", paramLabel = "PART", defaultValue = "throughput,failover,catch-up,soak",
      description = "Which parts to run, in this order: throughput, failover, catch-up, soak. Default: ${DEFAULT-VALUE}")
  List<String> parts;

  @Option(names = "--loads", split = ",", paramLabel = "LOAD", defaultValue = "1x1,8x8,8x32,16-keys,conditional",
      description = "Throughput loads to run: 1x1, 8x8, 8x32, 16-keys (4 clients x 8 in flight), conditional (a follower's read-modify-write,"
          + " 1 in flight). Default: ${DEFAULT-VALUE}")
  List<String> loads;

  @Option(names = "--peers", split = ",", paramLabel = "PEER", defaultValue = "etcd,single-owner",
      description = "Peers of the throughput part: etcd, single-owner, or none. Default: ${DEFAULT-VALUE}")
  List<String> peers;

  @Option(names = "--etcd", paramLabel = "PATH", defaultValue = "etcd",
      description = "The etcd server binary: a path, or a name looked up on PATH (Debian: apt-get install etcd-server). Without it the"
          + " throughput part runs without etcd and says so. Default: ${DEFAULT-VALUE}")
  String etcd;

  @Option(names = "--diagnose",
      description = "Also write replication-diagnosis.md: per replicated throughput cell, the CPU per commit of each node's threads by role"
          + " and every Ratis counter and timer that moved, per commit")
  boolean diagnose;

  @Option(names = "--failover-trials", defaultValue = "5", description = "Times the leader is stopped. Default: ${DEFAULT-VALUE}")
  int failoverTrials;

  @Option(names = "--catch-up-commits", defaultValue = "1000000", description = "Commits the stopped follower misses. Default: ${DEFAULT-VALUE}")
  long catchUpCommits;

  @Option(names = "--catch-up-in-flight", defaultValue = "128",
      description = "Commits in flight while they are made, over 4 clients on the 2 running nodes, 1..192. Default: ${DEFAULT-VALUE}")
  int catchUpInFlight;

  @Option(names = "--soak-seconds", defaultValue = "600", description = "Seconds of sustained load (8 clients x 8 in flight) for the log size. Default: ${DEFAULT-VALUE}")
  double soakSeconds;

  @Option(names = "--sample-seconds", defaultValue = "5", description = "How often the soak samples each node's log. Default: ${DEFAULT-VALUE}")
  double sampleSeconds;

  @Option(names = "--snapshot-every", paramLabel = "ENTRIES",
      description = "ReplicaNodeSettings.snapshotEveryEntries for every part, as the module validates it. Default: the module's, ${DEFAULT-VALUE}")
  long snapshotEvery = DEFAULTS.snapshotEveryEntries();

  @Option(names = "--log-segment-kib", paramLabel = "KIB",
      description = "ReplicaNodeSettings.logSegmentBytes in KiB for every part, 64..1048576. Default: the module's, ${DEFAULT-VALUE}")
  long logSegmentKib = DEFAULTS.logSegmentBytes() / 1024;

  @Mixin
  DirOption dir = new DirOption();

  @Option(names = "--out", description = "Directory for the result files. Default: ./commitlane-results/<date-time>")
  Path out;

  @Mixin
  ProgressOption progress = new ProgressOption();

  @Spec
  CommandSpec spec;

  /** What the run is doing now, for the progress line. */
  private volatile String phase = "starting";

  @Override
  public Integer call() throws Exception {
    timing.validate();
    if (parts.isEmpty()) {
      throw Checks.usage("--parts: name at least one of " + String.join(", ", PARTS));
    }
    parts.forEach(p -> Checks.oneOf("--parts", p, PARTS));
    loads.forEach(l -> Checks.oneOf("--loads", l, ThroughputLoad.names()));
    peers.forEach(p -> Checks.oneOf("--peers", p, PEERS));
    if (peers.contains("none") && peers.size() > 1) {
      throw Checks.usage("--peers: none runs the replicated variants alone; name it without etcd or single-owner");
    }
    Checks.range("--warmup-rounds", warmupRounds, 0, 100);
    Checks.range("--failover-trials", failoverTrials, 1, 1000);
    Checks.range("--catch-up-commits", catchUpCommits, 1, 1_000_000_000);
    Checks.range("--catch-up-in-flight", catchUpInFlight, 1, 192);
    Checks.positive("--soak-seconds", soakSeconds);
    Checks.positive("--sample-seconds", sampleSeconds);
    Checks.range("--log-segment-kib", logSegmentKib, 64, 1024 * 1024);
    UnaryOperator<ReplicaNodeSettings> tuning = s -> s.withSnapshotEveryEntries(snapshotEvery).withLogSegmentBytes(logSegmentKib * 1024);
    ReplicaNodeSettings effective;
    try {
      effective = tuning.apply(DEFAULTS);
    } catch (InvalidSettingsException e) {
      throw Checks.usage("--snapshot-every / --log-segment-kib: " + e.getMessage());
    }
    Path outDir = ResultsDirectory.create(out);
    PrintStream stdout = System.out;
    MachineInfo machine = MachineInfo.current();
    ReplicationReport report = new ReplicationReport(TypedCommand.of(spec), machine, ZonedDateTime.now(), settingsJson(effective));
    Path root = dir.root("commitlane-replication-bench");
    StopSignal.arm();
    try (ProgressLine line = ProgressLine.start(System.err, progress.progress, () -> "replication: " + phase)) {
      stdout.printf(Locale.ROOT, "replication: parts %s in %s%n", String.join(", ", parts), root);
      stdout.printf(Locale.ROOT, "  replicas: 3 voters in this JVM on loopback; election timeouts %d-%d ms, a snapshot every %,d entries,"
              + " Raft log segments of %s, RocksDB WAL %s%n", effective.electionTimeoutMin().toMillis(), effective.electionTimeoutMax().toMillis(),
          effective.snapshotEveryEntries(), Units.bytes(effective.logSegmentBytes()), effective.rocksDbWal() ? "on" : "off");
      stdout.printf(Locale.ROOT, "  machine: %s%n", machine.describe());
      try {
        for (String part : PARTS) {
          if (parts.contains(part)) {
            runPart(part, root.resolve(part), tuning, report, stdout, outDir);
          }
        }
      } catch (StopSignal.StoppedException e) {
        report.partial = true;
        stdout.println("  stopped (Ctrl-C): reporting what was measured");
      }
      stdout.println();
      stdout.print(report.tables());
      Files.writeString(outDir.resolve("replication.md"), report.markdownSection(), StandardCharsets.UTF_8);
      Files.writeString(outDir.resolve("replication.json"), report.json(), StandardCharsets.UTF_8);
      Files.writeString(outDir.resolve("replication.csv"), report.throughputCsv(), StandardCharsets.UTF_8);
      Files.writeString(outDir.resolve("replication-soak.csv"), report.soakCsv(), StandardCharsets.UTF_8);
      stdout.println("results" + (report.partial ? " (partial)" : "") + ": " + outDir.toAbsolutePath()
          + "  (replication.md, replication.json, replication.csv, replication-soak.csv)");
      return report.partial ? CompareCommand.STOPPED : report.failed() ? Main.FAILED : 0;
    } finally {
      dir.cleanUp(root);
      StopSignal.finished();
    }
  }

  /** Runs one part on fresh replicas in {@code partDir}; a failure is reported and the run goes on, a stop request is not caught. */
  private void runPart(String part, Path partDir, UnaryOperator<ReplicaNodeSettings> tuning, ReplicationReport report, PrintStream out,
      Path outDir) throws Exception {
    phase = part;
    out.printf(Locale.ROOT, "%n== %s%n", part);
    ContentionRunner.deleteRecursively(partDir); // a kept --dir from an earlier run: replicas there know other ports
    try {
      switch (part) {
        case "throughput" -> throughput(partDir, tuning, report, out, outDir);
        case "failover" -> {
          try (ReplicaLoopback replicas = new ReplicaLoopback(partDir, 3, tuning)) {
            new ReplicationFailover(timing.warmup).measure(replicas, failoverTrials, report.failover, out);
          }
        }
        case "catch-up" -> {
          try (ReplicaLoopback replicas = new ReplicaLoopback(partDir, 3, tuning)) {
            report.catchUp = new ReplicationCatchUp(catchUpCommits, catchUpInFlight).measure(replicas, out);
          }
        }
        case "soak" -> soak(partDir, tuning, report, out);
        default -> throw new IllegalArgumentException(part);
      }
    } catch (StopSignal.StoppedException e) {
      throw e;
    } catch (Exception e) {
      report.failures.put(part, e.toString());
      out.println("  " + part + " failed: " + e);
      e.printStackTrace();
    } finally {
      if (dir.dir == null) {
        ContentionRunner.deleteRecursively(partDir); // the catch-up's replicas hold every commit three times
      }
    }
  }

  private void throughput(Path partDir, UnaryOperator<ReplicaNodeSettings> tuning, ReplicationReport report, PrintStream out, Path outDir)
      throws Exception {
    boolean withOwner = peers.contains("single-owner");
    EtcdCluster etcdCluster = null;
    List<ActorSystem<Void>> owners = List.of();
    long start = System.nanoTime();
    try (ReplicaLoopback replicas = new ReplicaLoopback(partDir.resolve("replicated"), 3, tuning)) {
      out.println("  starting 3 replica nodes in this JVM (loopback)...");
      int leader = replicas.awaitLeader(Duration.ofSeconds(120));
      out.printf(Locale.ROOT, "  replica nodes up in %.1f s (%s leads)%n", (System.nanoTime() - start) / 1e9, replicas.id(leader));
      if (peers.contains("etcd")) {
        etcdCluster = startEtcd(partDir.resolve("etcd"), report, out);
      }
      if (withOwner) {
        long owned = System.nanoTime();
        owners = LoopbackCluster.start("bench-single-owner", 3, partDir.resolve("single-owner"));
        out.printf(Locale.ROOT, "  the single-owner cluster (3 Pekko nodes in this JVM) up in %.1f s%n", (System.nanoTime() - owned) / 1e9);
      }
      List<ThroughputLoad> chosen = ThroughputLoad.ALL.stream().filter(l -> loads.contains(l.name())).toList();
      RaftDiagnosis diagnosis = diagnose ? new RaftDiagnosis(outDir.resolve("replication-diagnosis.md")) : null;
      new ReplicationThroughput(timing.runs, warmupRounds, timing.warmup, timing.seconds, chosen, diagnosis)
          .measure(replicas, new ReplicationThroughput.Peers(etcdCluster, owners), report.throughput, out);
    } finally {
      List<ActorSystem<Void>> reversed = new ArrayList<>(owners);
      Collections.reverse(reversed); // the first node (the seed) last, as the cluster bench does
      reversed.forEach(LoopbackCluster::terminate);
      if (etcdCluster != null) {
        etcdCluster.close();
        out.println("  etcd members stopped");
      }
    }
  }

  /** Starts the etcd peer, or says why it does not run; null when it does not. */
  private EtcdCluster startEtcd(Path dir, ReplicationReport report, PrintStream out) throws Exception {
    Optional<Path> binary = EtcdCluster.find(etcd);
    if (binary.isEmpty()) {
      report.etcdNote = EtcdCluster.notInstalled(etcd);
      out.println("  " + report.etcdNote);
      return null;
    }
    long start = System.nanoTime();
    EtcdCluster cluster = EtcdCluster.start(binary.get(), dir, 3);
    report.etcdNote = String.format(Locale.ROOT, "etcd peer: %s (%s), 3 members on loopback, each with its own data directory, default settings"
        + " (its write-ahead log fsynced before a write is acknowledged); driven by jetcd, one client per member", cluster.version(), binary.get());
    out.printf(Locale.ROOT, "  %s; up in %.1f s%n", report.etcdNote, (System.nanoTime() - start) / 1e9);
    return cluster;
  }

  private void soak(Path partDir, UnaryOperator<ReplicaNodeSettings> tuning, ReplicationReport report, PrintStream out) throws Exception {
    ReplicationSoak soak = new ReplicationSoak(soakSeconds, sampleSeconds);
    long segment = logSegmentKib * 1024;
    try (ReplicaLoopback replicas = new ReplicaLoopback(partDir, 3, tuning)) {
      report.soak = soak.measure(replicas, segment, report.soakSamples, out);
    } catch (StopSignal.StoppedException e) {
      if (!report.soakSamples.isEmpty()) {
        List<ReplicationSoak.Sample> s = report.soakSamples;
        double seconds = s.get(s.size() - 1).atSeconds();
        report.soak = new ReplicationSoak.Result(seconds, 0, 0, List.copyOf(s), ReplicationSoak.summarize(s, seconds, segment));
      }
      throw e;
    }
  }

  private Map<String, Object> settingsJson(ReplicaNodeSettings s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("description", String.format(Locale.ROOT, "Everything in one JVM on loopback. Replicated: 3 voters (ReplicaNode, Apache Ratis), election"
            + " timeouts %d-%d ms, a snapshot every %,d entries, Raft log segments of %s, the Raft log fsynced by Ratis in batches, RocksDB's"
            + " WAL %s. etcd: 3 members on loopback (separate processes), default settings, driven by jetcd from this JVM. Single owner: 3"
            + " Pekko cluster nodes, one database, commitlane's default settings (RocksDB WAL on, not fsynced)."
            + " Commits write random keys of %,d with %d-byte values; only the read-modify-write load reads. Throughput: %d round%s after %d not counted,"
            + " variants rotated, %s s warm-up + %s s measured each, a trivial task timed on an application's default dispatcher (a Pekko"
            + " actor system in this JVM) every 1 ms during each measured window. Failover: %d trial%s under %d clients x %d in flight, after %s s of load. Catch-up: %,d commits, %d"
            + " in flight."
            + " Soak: %s s of 8 clients x 8 in flight, sampled every %s s.",
        s.electionTimeoutMin().toMillis(), s.electionTimeoutMax().toMillis(), s.snapshotEveryEntries(), Units.bytes(s.logSegmentBytes()),
        s.rocksDbWal() ? "on" : "off", ShardedWriteLoad.KEY_SPACE, ShardedWriteLoad.VALUE_BYTES, timing.runs, timing.runs == 1 ? "" : "s",
        warmupRounds, timing.warmup, timing.seconds, failoverTrials, failoverTrials == 1 ? "" : "s", ReplicationFailover.BACKGROUND_CLIENTS,
        ReplicationFailover.BACKGROUND_IN_FLIGHT, Math.max(1, timing.warmup), catchUpCommits, catchUpInFlight, soakSeconds, sampleSeconds));
    m.put("parts", parts);
    m.put("loads", loads);
    m.put("peers", peers);
    m.put("runs", timing.runs);
    m.put("warmupRounds", warmupRounds);
    m.put("warmupSeconds", timing.warmup);
    m.put("seconds", timing.seconds);
    m.put("failoverTrials", failoverTrials);
    m.put("catchUpCommits", catchUpCommits);
    m.put("catchUpInFlight", catchUpInFlight);
    m.put("soakSeconds", soakSeconds);
    m.put("sampleSeconds", sampleSeconds);
    m.put("electionTimeoutMinMillis", s.electionTimeoutMin().toMillis());
    m.put("electionTimeoutMaxMillis", s.electionTimeoutMax().toMillis());
    m.put("snapshotEveryEntries", s.snapshotEveryEntries());
    m.put("logSegmentBytes", s.logSegmentBytes());
    m.put("rocksDbWal", s.rocksDbWal());
    return m;
  }
}
