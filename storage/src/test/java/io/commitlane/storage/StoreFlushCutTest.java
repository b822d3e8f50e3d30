package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With pipelined writes RocksDB flushes stores one by one: a flush event must not report as
 * flushed a sequence that another store still holds unflushed, or a transaction log would stop
 * replaying commits whose data in that store a power loss (or a crash with an unsynced WAL) takes.
 */
class StoreFlushCutTest {
  private static final RocksDbWal PIPELINED = new RocksDbWal(false, Duration.ZERO, false, false, true, false);

  @TempDir
  Path dir;

  @Test
  void aFlushOfOneStoreDoesNotReportAnotherStoresUnflushedWritesFlushed() throws Exception {
    DatabaseOptions options = DatabaseOptions.defaults().withWal(true).withStores("a", "b")
        .withSettings(CommitlaneSettings.defaults().withRocksDbWal(PIPELINED));
    try (Database db = Database.open(dir, options)) {
      BlockingQueue<Long> flushed = new LinkedBlockingQueue<>();
      try (Database.Registration r = db.addFlushListener(flushed::add)) {
        Store a = db.store("a");
        Store b = db.store("b");
        db.put(b, of("kb"), of("vb"));
        long bWrite = db.shared().latestSequenceNumber();
        db.put(a, of("ka"), of("va"));
        long aWrite = db.shared().latestSequenceNumber();

        db.shared().flush(a);
        Long reported = flushed.poll(30, TimeUnit.SECONDS);
        assertNotNull(reported, "no flush event");
        assertTrue(reported < bWrite, "store a's flush reported sequence " + reported + " flushed, but store b still holds write "
            + bWrite + " only in its memtable");

        db.shared().flush(b);
        Long both = flushed.poll(30, TimeUnit.SECONDS);
        assertNotNull(both, "no flush event");
        assertTrue(both >= aWrite, "with every store flushed, the event covers every write: " + both + " < " + aWrite);
      }
    }
  }

  @Test
  void aStoreWithNothingUnflushedDoesNotHoldTheOthersBack() throws Exception {
    DatabaseOptions options = DatabaseOptions.defaults().withWal(true).withStores("a", "idle")
        .withSettings(CommitlaneSettings.defaults().withRocksDbWal(PIPELINED));
    try (Database db = Database.open(dir, options)) {
      BlockingQueue<Long> flushed = new LinkedBlockingQueue<>();
      try (Database.Registration r = db.addFlushListener(flushed::add)) {
        Store a = db.store("a");
        db.put(a, of("ka"), of("va"));
        long aWrite = db.shared().latestSequenceNumber();
        db.shared().flush(a);
        Long reported = flushed.poll(30, TimeUnit.SECONDS);
        assertNotNull(reported, "no flush event");
        assertTrue(reported >= aWrite, "a store never written (never flushed) must not keep the flushed sequence at 0: " + reported);
      }
    }
  }
}
