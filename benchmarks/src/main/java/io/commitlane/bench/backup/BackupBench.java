package io.commitlane.bench.backup;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.Batch;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.RestoreOptions;
import io.commitlane.storage.Transaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.actor.typed.ActorSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Backups measured in one run: a database of {@code --size-mb} (random, incompressible values) is
 * backed up while {@code --workers} commit through the pipeline (commits/s during the backup
 * against the same workers just before it), then a second backup of the unchanged database (its
 * bytes against the first's), then a restore (seconds per GiB).
 */
@Command(name = "backup-bench", mixinStandardHelpOptions = true,
    description = "Back up a database of --size-mb while --workers commit (commits/s during vs before), back up the"
        + " unchanged database again (bytes copied vs the first), restore it (s/GiB). Prints one table.")
public final class BackupBench implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--size-mb", defaultValue = "1024", description = "Database size in MiB (default: ${DEFAULT-VALUE})")
  int sizeMb;

  @Option(names = "--workers", defaultValue = "4", description = "Committing workers (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(names = "--baseline-seconds", defaultValue = "10", description = "Commits measured before the backup (default: ${DEFAULT-VALUE})")
  int baselineSeconds;

  @Option(names = "--dir", description = "Scratch directory (default: a temporary one, removed after)")
  Path dir;

  @Override
  public Integer call() throws Exception {
    Checks.positive("--size-mb", sizeMb);
    Checks.positive("--workers", workers);
    Checks.positive("--baseline-seconds", baselineSeconds);
    Path root = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("backup-bench");
    Path data = root.resolve("db");
    load(data);
    ActorSystem<Void> system = BenchSystem.start("backup-bench", BenchSystem.config());
    try {
      PipelineSettings settings = PipelineSettings.fromConfig(ConfigFactory.parseMap(Map.of("wal", "off"))
          .atPath("commitlane").withFallback(system.settings().config()));
      CommitlaneDatabase db = Commitlane.get(system).open(data, settings);
      BackupStore store = BackupStore.at(root.resolve("backups"));
      LongAdder commits = new LongAdder();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        int worker = w;
        Thread t = new Thread(() -> commitLoop(db, worker, commits, stop), "backup-bench-worker-" + w);
        t.start();
        threads.add(t);
      }
      Thread.sleep(Math.min(5, baselineSeconds) * 1000L); // warm-up, not measured
      long c0 = commits.sum();
      long t0 = System.nanoTime();
      Thread.sleep(baselineSeconds * 1000L); // a measurement window, not a wait for a result
      long c1 = commits.sum();
      long t1 = System.nanoTime();
      CompletableFuture<BackupInfo> first = db.backup(store);
      BackupInfo b1 = first.get(1, TimeUnit.HOURS);
      long c2 = commits.sum();
      long t2 = System.nanoTime();
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
      long afterFirst = treeSize(root.resolve("backups"));
      awaitQuietFiles(data); // compactions the workers' writes started would add new table files to any backup
      db.backup(store).get(1, TimeUnit.HOURS); // takes in the workers' last writes and those compactions
      long beforeUnchanged = treeSize(root.resolve("backups"));
      long u0 = System.nanoTime();
      db.backup(store).get(1, TimeUnit.HOURS);
      long u1 = System.nanoTime();
      long unchangedBytes = treeSize(root.resolve("backups")) - beforeUnchanged;
      db.close();
      long r0 = System.nanoTime();
      store.restore(b1.id(), root.resolve("restored"), RestoreOptions.defaults());
      long r1 = System.nanoTime();
      double gib = b1.sizeBytes() / (double) (1L << 30);
      double before = (c1 - c0) / ((t1 - t0) / 1e9);
      double during = (c2 - c1) / ((t2 - t1) / 1e9);
      System.out.printf("database %d MiB, %d workers x 1 key, logged, WAL off%n", sizeMb, workers);
      System.out.print(MarkdownTable.of("measure", "value")
          .row(String.format("commits/s before the backup (%d s)", baselineSeconds), String.format("%.0f", before))
          .row(String.format("commits/s during the backup (%.1f s)", (t2 - t1) / 1e9), String.format("%.0f (%.2fx)", during, during / before))
          .row("first backup: bytes in the backup directory", afterFirst)
          .row("second backup of the unchanged database: bytes added, time",
              String.format("%d (%.3f%% of the first), %.2f s", unchangedBytes, 100.0 * unchangedBytes / afterFirst, (u1 - u0) / 1e9))
          .row("restore of the first backup", String.format("%.1f s, %.1f s/GiB", (r1 - r0) / 1e9, (r1 - r0) / 1e9 / gib)));
      return 0;
    } finally {
      BenchSystem.stop(system);
      if (dir == null) {
        Database.destroy(data);
        deleteTree(root);
      }
    }
  }

  /** Fills the database with incompressible 4 KiB values in batches, then flushes. */
  private void load(Path data) {
    SplittableRandom random = new SplittableRandom(1);
    long values = (long) sizeMb * 256;
    try (Database db = Database.open(data, DatabaseOptions.defaults().withWal(false))) {
      for (long i = 0; i < values; ) {
        Batch batch = Batch.create();
        for (int n = 0; n < 256 && i < values; n++, i++) {
          byte[] v = new byte[4096];
          for (int j = 0; j < v.length; j += 8) {
            long r = random.nextLong();
            for (int k = 0; k < 8; k++) {
              v[j + k] = (byte) (r >>> (8 * k));
            }
          }
          batch.put(db.defaultStore(), String.format("load/%012d", i).getBytes(), v);
        }
        db.write(batch);
      }
      db.flush();
    }
  }

  private static void commitLoop(CommitlaneDatabase db, int worker, LongAdder commits, AtomicBoolean stop) {
    long i = 0;
    while (!stop.get()) {
      Transaction t = db.begin().useLog("bench");
      t.put(("w" + worker + "/" + (i++ % 10_000)).getBytes(), new byte[100]);
      db.commit(t).toCompletableFuture().join();
      commits.increment();
    }
  }

  /** Until the database's table files stayed the same for 3 s (background compactions done), at most 5 minutes. */
  private static void awaitQuietFiles(Path data) throws IOException, InterruptedException {
    List<String> last = List.of();
    int quiet = 0;
    for (int i = 0; i < 300 && quiet < 3; i++) {
      List<String> now;
      try (var files = Files.list(data)) {
        now = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sst")).sorted().toList();
      }
      quiet = now.equals(last) ? quiet + 1 : 0;
      last = now;
      Thread.sleep(1000); // polling the directory: RocksDB's compaction state is not in the public API
    }
  }

  /** Bytes stored under {@code root}: a file hard-linked from several backups counts once. */
  private static long treeSize(Path root) throws IOException {
    java.util.Set<Object> seen = new java.util.HashSet<>();
    long total = 0;
    try (var walk = Files.walk(root)) {
      for (Path p : walk.toList()) {
        var attrs = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class);
        if (attrs.isRegularFile() && (attrs.fileKey() == null || seen.add(attrs.fileKey()))) {
          total += attrs.size();
        }
      }
    }
    return total;
  }

  private static void deleteTree(Path root) throws IOException {
    try (var walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
