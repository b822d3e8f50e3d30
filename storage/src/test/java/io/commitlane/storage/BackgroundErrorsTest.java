package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A background error on a real full disk (a small tmpfs, skipped where mounting is not allowed):
 * the health says so, commits fail with a typed error while RocksDB refuses writes, and once
 * space is freed RocksDB resumes and nothing acknowledged is lost.
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
