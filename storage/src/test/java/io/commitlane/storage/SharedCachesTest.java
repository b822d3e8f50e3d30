package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.rocks.SharedCaches;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.io.TempDirFactory;
import org.rocksdb.Cache;
import org.rocksdb.RocksDBException;

/**
 * The block cache and write-buffer manager are one object each for every database of the
 * process: memory is bounded per process, and the natives are freed with the last database.
 */
class SharedCachesTest {
  private static final long MIB = RocksDbTuning.MIB;

  /**
   * In memory when the machine has a /dev/shm with room for the test's files (about 70 MiB; a
   * container's default one has 64 MiB): the bound is on memory, and the many small flushes it
   * causes only make the test slow on a disk other builds keep busy (155 s there, against 15 to
   * 25 s in memory, measured under load).
   */
  @TempDir(factory = MemoryTempDir.class)
  Path dir;

  static final class MemoryTempDir implements TempDirFactory {
    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context) throws IOException {
      Path shm = Path.of("/dev/shm");
      boolean roomy = Files.isDirectory(shm) && Files.isWritable(shm) && Files.getFileStore(shm).getUsableSpace() > 1024 * MIB;
      return roomy ? Files.createTempDirectory(shm, "shared-caches") : Files.createTempDirectory("shared-caches");
    }
  }

  private DatabaseOptions options(long cache, long writeBuffers) {
    return DatabaseOptions.defaults().withWal(false).withSettings(CommitlaneSettings.defaults()
        .withRocksDbTuning(RocksDbTuning.defaults().withSharedMemory(cache, writeBuffers)));
  }

  @Test
  void everyDatabaseUsesTheOneCacheWhichClosesWithTheLast() {
    List<Database> dbs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      dbs.add(Database.open(dir.resolve("db" + i), options(7 * MIB, 3 * MIB)));
    }
    SharedCaches.Lease first = dbs.get(0).shared().storeOptions().caches();
    Cache cache = first.cache();
    for (Database db : dbs) {
      assertSame(first, db.shared().storeOptions().caches());
    }
    assertEquals(10, first.references());
    for (int i = 0; i < 9; i++) {
      dbs.get(i).close();
    }
    assertTrue(cache.isOwningHandle(), "still used by the last database");
    dbs.get(9).close();
    assertFalse(cache.isOwningHandle(), "freed with the last database");
    assertFalse(first.writeBufferManager().isOwningHandle());
    try (Database again = Database.open(dir.resolve("db0"), options(7 * MIB, 3 * MIB))) {
      assertTrue(again.shared().storeOptions().caches().cache().isOwningHandle(), "a later open makes a new one");
    }
  }

  @Test
  void theWriteBufferManagerBoundsMemtablesAcrossDatabases() {
    long bound = 8 * MIB;
    long withBound = activeMemtables(dir.resolve("bounded"), options(32 * MIB, bound));
    long without = activeMemtables(dir.resolve("unbounded"), options(32 * MIB, 0));
    // 8 databases x 4 MiB written, 64 MiB write buffers: nothing flushes without the manager.
    assertTrue(without > 30 * MIB, "without a bound the memtables hold everything: " + without);
    assertTrue(withBound <= bound + 2 * MIB, "memtables of every database stay within the bound: " + withBound);
  }

  /** Writes 4 MiB into each of 8 databases and returns the bytes of their active memtables together. */
  private long activeMemtables(Path root, DatabaseOptions options) {
    List<Database> dbs = new ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        dbs.add(Database.open(root.resolve("db" + i), options));
      }
      byte[] value = new byte[1024];
      for (int round = 0; round < 4096; round++) {
        for (Database db : dbs) {
          db.put(of("key-" + round), value);
        }
      }
      long total = 0;
      for (Database db : dbs) {
        total += db.shared().rocks().getAggregatedLongProperty("rocksdb.cur-size-active-mem-table");
      }
      for (Database db : dbs) {
        assertEquals(1024, db.get(of("key-4095")).length);
      }
      return total;
    } catch (RocksDBException e) {
      throw new AssertionError(e);
    } finally {
      dbs.forEach(Database::close);
    }
  }
}
