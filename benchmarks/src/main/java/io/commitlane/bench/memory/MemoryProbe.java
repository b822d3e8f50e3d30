package io.commitlane.bench.memory;

import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.RocksDbTuning;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.OptimisticTransactionDB;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * Runs in a fresh JVM (forked by {@link MemoryBench}): opens N empty databases of one kind and
 * prints how much memory that took: the growth of anonymous resident memory (RssAnon, which
 * covers RocksDB's native allocations; the Java heap is pre-touched so it does not grow) plus the
 * growth of the live Java heap after a full GC (commitlane's version tables live there).
 */
public final class MemoryProbe {
  private MemoryProbe() {}

  public static void main(String[] args) throws Exception {
    String kind = args[0];
    Path root = Path.of(args[1]);
    int count = Integer.parseInt(args[2]);
    RocksDB.loadLibrary();
    // Open and close one database first so one-time costs (classes, RocksDB's static thread
    // pools and caches) are not charged to the N measured ones.
    open(kind, root.resolve("warmup")).forEach(MemoryProbe::closeQuietly);
    long anonBefore = rssAnonBytes();
    long heapBefore = liveHeap();
    List<AutoCloseable> open = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      open.addAll(open(kind, root.resolve("db-" + i)));
    }
    long heapAfter = liveHeap();
    long anonAfter = rssAnonBytes();
    System.out.println("anon=" + (anonAfter - anonBefore) + " heap=" + (heapAfter - heapBefore));
    open.forEach(MemoryProbe::closeQuietly);
  }

  private static List<AutoCloseable> open(String kind, Path dir) throws Exception {
    Files.createDirectories(dir);
    switch (kind) {
      case "commitlane":
        return List.of(Database.open(dir, DatabaseOptions.defaults().withWal(false)));
      case "commitlane-1m":
        return List.of(Database.open(dir, DatabaseOptions.defaults().withWal(false)
            .withSettings(CommitlaneSettings.defaults().withOccLockBuckets(1 << 20))));
      case "shared":
      case "private": {
        // Written databases: 4 MiB flushed and read back (block cache), then 4 MiB more (memtables).
        RocksDbTuning tuning = kind.equals("shared") ? RocksDbTuning.defaults() : RocksDbTuning.defaults().withSharedMemory(0, 0);
        Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false)
            .withSettings(CommitlaneSettings.defaults().withRocksDbTuning(tuning)));
        byte[] value = new byte[1024];
        java.util.Random random = new java.util.Random(dir.hashCode());
        for (int i = 0; i < 8192; i++) {
          random.nextBytes(value);
          db.put(("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8), value);
          if (i == 4095) {
            db.flush();
            for (int k = 0; k < 4096; k++) {
              db.get(("key-" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
          }
        }
        return List.of(db);
      }
      case "optimistic": {
        Options o = new Options().setCreateIfMissing(true);
        return List.of(OptimisticTransactionDB.open(o, dir.toString()), o);
      }
      case "plain": {
        Options o = new Options().setCreateIfMissing(true);
        return List.of(RocksDB.open(o, dir.toString()), o);
      }
      default:
        throw new IllegalArgumentException("unknown kind " + kind);
    }
  }

  private static long liveHeap() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  public static long rssAnonBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("RssAnon:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IOException("no RssAnon in /proc/self/status (Linux only)");
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
