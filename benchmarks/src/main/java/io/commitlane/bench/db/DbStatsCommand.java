package io.commitlane.bench.db;

import io.commitlane.actors.internal.log.ReplayBacklog;
import io.commitlane.bench.Main;
import io.commitlane.bench.cli.Checks;
import io.commitlane.storage.CommitlaneException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseHealth;
import io.commitlane.storage.RocksDbStats;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Print a database's health and the RocksDB numbers an operator watches. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = "Print a database's health (OK, DEGRADED, FAILED) and what RocksDB reports: pending compaction,"
        + " memtables, live SST files, block cache, write stalls, running flushes and compactions; and how many records"
        + " of its transaction logs a normal open would replay. The database is opened read-only: nothing is written or"
        + " replayed, and it may be open in another process (then the numbers are those of its files on disk, not of"
        + " that process's memtables). Exit code 0: healthy, 1: not healthy or it could not"
        + " be opened, 2: bad arguments or not a database directory.")
final class DbStatsCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "A database directory (data/orders)")
  Path directory;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    if (!Files.isRegularFile(directory.resolve("CURRENT"))) {
      throw new Checks.UsageException("DIR " + directory + ": not a RocksDB database directory (it has no CURRENT file)");
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Database db;
    try {
      db = Database.openReadOnly(directory);
    } catch (CommitlaneException e) {
      err.println("commitlane db stats: cannot open " + directory + ": " + e.getMessage());
      return Main.FAILED;
    }
    DatabaseHealth health;
    try (db) {
      // The numbers first, then the health, which looks at RocksDB's error count (the open may have raised it).
      RocksDbStats r = db.rocksDbStats();
      health = db.health();
      print(out, directory, health, r, db);
    }
    out.flush();
    return health.isOk() ? 0 : Main.FAILED;
  }

  static void print(PrintWriter out, Path directory, DatabaseHealth health, RocksDbStats r, Database db) {
    out.printf("database              %s%n", directory);
    out.printf("health                %s%n", health);
    out.printf("stores                %s%n", String.join(", ", db.storeNames()));
    out.printf("log replay            %s%n", replay(ReplayBacklog.count(db)));
    out.printf("pending compaction    %s%n", bytes(r.pendingCompactionBytes()));
    out.printf("memtables             %s%n", bytes(r.memtableBytes()));
    out.printf("live SST files        %s, %d in level 0%n", bytes(r.liveSstBytes()), r.level0Files());
    out.printf("index and filters     %s outside the block cache%n", bytes(r.tableReadersBytes()));
    long lookups = r.blockCacheHits() + r.blockCacheMisses();
    out.printf("block cache           %s%s%n", bytes(r.blockCacheBytes()), !r.hasStatistics() ? ""
        : lookups == 0 ? ", no lookups since open"
        : String.format(Locale.ROOT, ", hit rate %s of %d lookups since open", percent(r.blockCacheHitRate()), lookups));
    out.printf("write stall           %s since open%n", r.stallMicros() < 0 ? "unknown (no statistics)"
        : String.format(Locale.ROOT, "%.1f ms", r.stallMicros() / 1000.0));
    out.printf("writes                %s%n", r.writeStopped() ? "stopped"
        : r.delayedWriteRate() > 0 ? "delayed to " + bytes(r.delayedWriteRate()) + "/s" : "not delayed");
    out.printf("running               %d compactions, %d flushes%n", r.runningCompactions(), r.runningFlushes());
  }

  /**
   * What this read-only open did not apply: the records each log holds past its flushed position
   * that RocksDB does not hold, which a normal open replays (what is shown here lacks their writes).
   */
  static String replay(Map<String, Long> unapplied) {
    if (unapplied.isEmpty()) {
      return "no transaction logs";
    }
    long total = unapplied.values().stream().mapToLong(Long::longValue).sum();
    StringBuilder perLog = new StringBuilder();
    unapplied.forEach((log, n) -> perLog.append(perLog.length() == 0 ? "" : ", ").append(log).append(' ').append(n));
    return total == 0 ? "nothing to replay (" + perLog + ")"
        : total + " log record" + (total == 1 ? "" : "s") + " not applied here (" + perLog + "): a normal open replays them,"
            + " and the numbers above lack their writes";
  }

  private static String percent(double rate) {
    return Double.isNaN(rate) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", rate * 100);
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String units = "KMGTPE";
    int u = (63 - Long.numberOfLeadingZeros(n)) / 10;
    return String.format(Locale.ROOT, "%.1f %siB", n / (double) (1L << (u * 10)), units.charAt(u - 1));
  }
}
