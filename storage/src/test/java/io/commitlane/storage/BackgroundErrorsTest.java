package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Background errors from real faults. A full disk (a small tmpfs, skipped where mounting is not
 * allowed): the health says so, commits fail with a typed error while RocksDB refuses writes, and
 * once space is freed RocksDB resumes and nothing acknowledged is lost. A damaged table file: the
 * health is FAILED until the database is reopened.
 */
class BackgroundErrorsTest {
  @TempDir Path dir;

  @Test
  void aFullDiskDegradesTheDatabaseUntilSpaceIsFreedAndNothingIsLost() throws Exception {
    Path mount = Files.createDirectories(dir.resolve("small-disk"));
    // Larger than RocksDB's default memtable (64 MiB): it resumes once that much is free again.
    assumeTrue(DurabilityContractTest.mountTmpfs(mount, "80m"), "cannot mount a tmpfs here");
    Path path = mount.resolve("db");
    byte[] value = new byte[64 << 10];
    try (Recording recording = new Recording()) {
      recording.enable("io.commitlane.HealthChanged");
      recording.start();
      try (Database db = Database.open(path, DatabaseOptions.defaults().withWal(false))) {
        assertEquals(DatabaseHealth.State.OK, db.health().state());
        for (int i = 0; i < 10; i++) {
          db.put(key("before", i), value);
        }
        Path filler = mount.resolve("filler");
        fill(filler);
        for (int i = 0; i < 20; i++) {
          db.put(key("during", i), value); // into the memtable: acknowledged
        }
        assertThrows(StorageException.class, db::flush, "the flush finds no room");

        DatabaseHealth health = db.health();
        assertEquals(DatabaseHealth.State.DEGRADED, health.state(), health::toString);
        assertTrue(health.error().contains("NoSpace"), health::toString);
        BackgroundErrorException refused = assertThrows(BackgroundErrorException.class,
            () -> db.transact(t -> t.put(key("refused", 0), value)));
        assertTrue(refused.isRetryable(), "RocksDB resumes on its own after a full disk");
        assertEquals(DatabaseHealth.State.DEGRADED, refused.health().state());
        assertTrue(refused.getMessage().contains("retry later"), refused.getMessage());
        assertThrows(BackgroundErrorException.class, () -> db.put(key("refused", 1), value));

        Files.delete(filler);
        DatabaseHealth resumed = db.resume().toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertEquals(DatabaseHealth.State.OK, resumed.state());
        assertEquals(DatabaseHealth.State.OK, db.health().state());
        db.transact(t -> {
          t.put(key("after", 0), value);
          return null;
        });
        db.flush();
      }
      recording.stop();
      Path jfr = dir.resolve("health.jfr");
      recording.dump(jfr);
      List<String> states = RecordingFile.readAllEvents(jfr).stream()
          .filter(e -> e.getEventType().getName().equals("io.commitlane.HealthChanged"))
          .map(e -> e.getString("previous") + "->" + e.getString("state")).toList();
      assertEquals(List.of("OK->DEGRADED", "DEGRADED->OK"), states);
    } finally {
      try (Database db = Database.open(path, DatabaseOptions.defaults().withWal(false))) {
        for (int i = 0; i < 10; i++) {
          assertArrayEquals(value, db.get(key("before", i)), "before " + i);
        }
        for (int i = 0; i < 20; i++) {
          assertArrayEquals(value, db.get(key("during", i)), "acknowledged while the disk was full: " + i);
        }
        assertArrayEquals(value, db.get(key("after", 0)));
        assertEquals(null, db.get(key("refused", 0)), "a refused commit wrote nothing");
      } finally {
        DurabilityContractTest.unmount(mount);
      }
    }
  }

  /**
   * A damaged table file (a changed byte in a data block, as a failing device leaves one) makes a
   * compaction fail with Corruption, which RocksDB does not recover from on its own: the health is
   * FAILED (one WARN, one Flight Recorder event), writes are refused with a non-retryable
   * BackgroundErrorException, resume() fails at once, reads go on; a reopen serves writes again
   * and has lost nothing acknowledged. The damaged file holds only versions that later writes
   * overwrote, so no acknowledged value depends on it.
   */
  @Test
  void aDamagedTableFileFailsTheDatabaseUntilItIsReopenedAndNothingAcknowledgedIsLost() throws Exception {
    Path path = dir.resolve("db");
    ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(BackgroundErrors.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try (Recording recording = new Recording()) {
      recording.enable("io.commitlane.HealthChanged");
      recording.start();
      try (Database db = Database.open(path)) { // the WAL on: unflushed writes survive the reopen through it
        for (int i = 0; i < 200; i++) {
          db.put(key("k", i), b("old" + i));
        }
        db.flush();
        List<Path> overwritten = tableFiles(path);
        for (int i = 0; i < 200; i++) {
          db.put(key("k", i), b("new" + i));
        }
        db.flush();
        for (int i = 0; i < 10; i++) {
          db.put(key("unflushed", i), b("u" + i)); // acknowledged, in the memtable and the WAL
        }
        for (Path table : overwritten) {
          damage(table, 20); // inside the first data block
        }

        // Bounded, and clear of the memtable's keys: RocksDB compacts without flushing them first.
        StorageException compaction = assertThrows(StorageException.class,
            () -> db.compact(KeyRange.between(b("k"), b("l")), true));
        assertTrue(compaction.getMessage().contains("damaged"), compaction.getMessage());
        DatabaseHealth health = db.health();
        assertEquals(DatabaseHealth.State.FAILED, health.state(), health::toString);
        assertEquals("COMPACTION", health.reason());
        assertTrue(health.error().startsWith("Corruption"), health::toString);

        BackgroundErrorException refused = assertThrows(BackgroundErrorException.class,
            () -> db.transact(t -> t.put(key("refused", 0), b("x"))));
        assertFalse(refused.isRetryable(), "RocksDB does not recover from a damaged file on its own");
        assertEquals(DatabaseHealth.State.FAILED, refused.health().state());
        assertTrue(refused.getMessage().contains("reopen"), refused.getMessage());
        assertThrows(BackgroundErrorException.class, () -> db.put(key("refused", 1), b("x")));
        CompletableFuture<DatabaseHealth> resumed = db.resume().toCompletableFuture();
        assertTrue(resumed.isCompletedExceptionally(), "resume() fails at once for FAILED");
        ExecutionException e = assertThrows(ExecutionException.class, resumed::get);
        assertInstanceOf(BackgroundErrorException.class, e.getCause());
        assertEquals("new7", s(db.get(key("k", 7))), "reads go on");
        assertEquals("u3", s(db.get(key("unflushed", 3))));
        assertEquals(DatabaseHealth.State.FAILED, db.stats().health().state());
      }
      recording.stop();
      Path jfr = dir.resolve("failed.jfr");
      recording.dump(jfr);
      List<String> states = RecordingFile.readAllEvents(jfr).stream()
          .filter(ev -> ev.getEventType().getName().equals("io.commitlane.HealthChanged"))
          .map(ev -> ev.getString("previous") + "->" + ev.getString("state") + " " + ev.getString("reason")).toList();
      assertEquals(List.of("OK->FAILED COMPACTION"), states);
    } finally {
      logger.detachAppender(logged);
    }
    List<ILoggingEvent> warnings = logged.list.stream().filter(ev -> ev.getLevel() == Level.WARN).toList();
    assertEquals(1, warnings.size(), () -> "one WARN per transition: " + warnings);
    assertTrue(warnings.get(0).getFormattedMessage().contains("FAILED (COMPACTION failed: Corruption"),
        warnings.get(0).getFormattedMessage());

    try (Database db = Database.open(path)) {
      assertEquals(DatabaseHealth.State.OK, db.health().state());
      for (int i = 0; i < 200; i++) {
        assertEquals("new" + i, s(db.get(key("k", i))), "acknowledged " + i);
      }
      for (int i = 0; i < 10; i++) {
        assertEquals("u" + i, s(db.get(key("unflushed", i))), "acknowledged after the last flush " + i);
      }
      assertNull(db.get(key("refused", 0)), "a refused commit wrote nothing");
      assertNull(db.get(key("refused", 1)));
      db.put(key("after", 0), b("writable again"));
    }
  }

  private static List<Path> tableFiles(Path db) throws IOException {
    try (Stream<Path> files = Files.list(db)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".sst")).sorted().toList();
    }
  }

  /** Flips 16 bytes of {@code file} at {@code at}, through the file system, while RocksDB has it open. */
  private static void damage(Path file, long at) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer bytes = ByteBuffer.allocate(16);
      ch.read(bytes, at);
      for (int i = 0; i < bytes.limit(); i++) {
        bytes.put(i, (byte) (bytes.get(i) ^ 0x5a));
      }
      ch.write(bytes.rewind(), at);
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  private static byte[] key(String prefix, int i) {
    return (prefix + "-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static void fill(Path file) throws IOException {
    byte[] chunk = new byte[64 << 10];
    try (var out = Files.newOutputStream(file)) {
      while (true) {
        out.write(chunk);
      }
    } catch (IOException full) {
      // ENOSPC: the disk is full now
    }
  }
}
