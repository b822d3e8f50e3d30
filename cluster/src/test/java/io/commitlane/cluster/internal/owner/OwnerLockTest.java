package io.commitlane.cluster.internal.owner;

import io.commitlane.cluster.OwnerEpochDamagedException;
import io.commitlane.cluster.OwnerLockProbe;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import io.commitlane.testkit.CrashHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.function.Consumer;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class OwnerLockTest {
  @TempDir
  Path dir;

  @Test
  void oneOwnerInThisProcessAndEachOwnerTakesTheNextEpoch() {
    Path db = dir.resolve("orders");
    OwnerLock first = OwnerLock.tryAcquire(db, "node-a");
    assertNotNull(first);
    assertEquals(1, first.epoch());
    assertEquals("node-a", OwnerLock.lastOwner(db));
    assertNull(OwnerLock.tryAcquire(db, "node-b"), "a second owner in the same JVM must be refused");
    first.close();
    assertFalse(first.isHeld());
    try (OwnerLock second = OwnerLock.tryAcquire(db, "node-b")) {
      assertNotNull(second);
      assertEquals(2, second.epoch());
      assertEquals("node-b", OwnerLock.lastOwner(db));
    }
  }

  /**
   * The holder keeps its lock against other processes after this process read the owner record
   * and refused a second owner of its own: on Linux closing any descriptor of the file would have
   * dropped the holder's lock, silently.
   */
  @Test
  void readingTheOwnerAndRefusingASecondOwnerKeepTheLockAgainstOtherProcesses() throws Exception {
    Path db = dir.resolve("kept");
    try (OwnerLock held = OwnerLock.tryAcquire(db, "node-a")) {
      assertNotNull(held);
      assertEquals("node-a", OwnerLock.lastOwner(db));
      assertNull(OwnerLock.tryAcquire(db, "node-b"), "a second owner in the same JVM must be refused");
      assertNull(OwnerLock.tryAcquire(dir.resolve(".").resolve("kept"), "node-c"), "also through another path");
      assertEquals("node-a", OwnerLock.lastOwner(db));
      CrashHarness.Child child = CrashHarness.of(OwnerLockProbe.class, db).start();
      List<String> markers;
      try {
        child.awaitMarker("tried", Duration.ofSeconds(60));
      } finally {
        markers = child.kill().markers();
      }
      assertTrue(markers.contains("refused"), "another process took the lock this one holds: " + markers);
      assertTrue(held.isHeld());
    }
    try (OwnerLock next = OwnerLock.tryAcquire(db, "node-b")) {
      assertNotNull(next, "released by close");
      assertEquals(2, next.epoch());
    }
  }

  /** The shared-volume case across processes: another JVM holding the lock keeps this one out until it exits. */
  @Test
  void anotherProcessHoldingTheLockKeepsThisOneOut() throws Exception {
    Path db = dir.resolve("shared");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LockHolder.class.getName(), db.toString())
        .redirectErrorStream(true).start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
      assertEquals("locked 1", out.readLine());
      assertNull(OwnerLock.tryAcquire(db, "this-jvm"), "the other process holds the lock");
      holder.destroyForcibly(); // like a crash: the OS drops the lock with the process
      assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
      try (OwnerLock mine = OwnerLock.tryAcquire(db, "this-jvm")) {
        assertNotNull(mine, "the lock goes with the process that held it");
        assertEquals(2, mine.epoch());
      }
    } finally {
      holder.destroyForcibly();
    }
  }

  /**
   * A crash while the owner record is rewritten can leave the lock file empty: the epoch still
   * comes from the epoch file, so the next owner does not start over at epoch 1.
   */
  @Test
  void anEmptiedLockFileDoesNotResetTheEpoch() throws Exception {
    Path db = dir.resolve("emptied");
    for (int i = 1; i <= 3; i++) {
      OwnerLock lock = OwnerLock.tryAcquire(db, "node-" + i);
      assertEquals(i, lock.epoch());
      lock.close();
    }
    try (FileChannel lockFile = FileChannel.open(db.resolve(OwnerLock.FILE_NAME), StandardOpenOption.WRITE)) {
      lockFile.truncate(0); // what a crash between truncating and rewriting the record leaves
    }
    try (OwnerLock next = OwnerLock.tryAcquire(db, "node-4")) {
      assertEquals(4, next.epoch(), "the epoch went back after a crash that emptied the lock file");
    }
  }

  /**
   * Every state a crash can leave while an owner takes epoch 3 (after epochs 1 and 2 were handed
   * out): the next owner takes an epoch above 2, so epochs never go back.
   */
  @Test
  void everyCrashPointWhileTakingAnEpochLeavesTheEpochsIncreasing() throws Exception {
    byte[] epoch3 = OwnerEpoch.record(3);
    List<Consumer<Path>> crashStates = List.of(
        db -> write(db.resolve(OwnerEpoch.TEMP_NAME), Arrays.copyOf(epoch3, 5)), // the new copy torn
        db -> write(db.resolve(OwnerEpoch.TEMP_NAME), epoch3), // the new copy complete, not renamed
        db -> write(db.resolve(OwnerEpoch.FILE_NAME), epoch3), // renamed; the lock file not rewritten yet
        db -> { // the lock file rewritten over a longer record, not cut to length yet
          write(db.resolve(OwnerEpoch.FILE_NAME), epoch3);
          write(db.resolve(OwnerLock.FILE_NAME), ByteBuffer.allocate(8 + 13).putLong(3).put("node-3 and-on".getBytes(StandardCharsets.UTF_8)).array());
        });
    int n = 0;
    for (Consumer<Path> crash : crashStates) {
      Path db = dir.resolve("crash-" + n++);
      OwnerLock.tryAcquire(db, "node-1").close();
      OwnerLock.tryAcquire(db, "node-2").close();
      crash.accept(db);
      try (OwnerLock next = OwnerLock.tryAcquire(db, "node-next")) {
        assertTrue(next.epoch() > 2, "crash state " + (n - 1) + " gave epoch " + next.epoch());
        assertEquals(next.epoch(), OwnerEpoch.last(db, 0), "the epoch file holds the epoch handed out");
        assertEquals("node-next", OwnerLock.lastOwner(db));
      }
      long taken = OwnerEpoch.last(db, 0);
      try (OwnerLock after = OwnerLock.tryAcquire(db, "node-after")) {
        assertEquals(taken + 1, after.epoch());
      }
    }
  }

  /** A damaged epoch file is not read as some epoch: the owner is refused, nothing is changed, and the lock is free again. */
  @Test
  void aDamagedEpochFileRefusesTheOwnerAndChangesNothing() throws Exception {
    Path db = dir.resolve("damaged");
    OwnerLock.tryAcquire(db, "node-1").close();
    OwnerLock.tryAcquire(db, "node-2").close();
    Path epochFile = db.resolve(OwnerEpoch.FILE_NAME);
    byte[] flipped = Files.readAllBytes(epochFile);
    flipped[11] ^= 0x40; // a bit of the epoch changed under the checksum
    for (byte[] damaged : List.of(flipped, new byte[0], Arrays.copyOf(flipped, 9), new byte[17])) {
      write(epochFile, damaged);
      byte[] lockBefore = Files.readAllBytes(db.resolve(OwnerLock.FILE_NAME));
      OwnerEpochDamagedException e = assertThrows(OwnerEpochDamagedException.class, () -> OwnerLock.tryAcquire(db, "node-3"));
      assertTrue(e.getMessage().contains(epochFile.toString()), e.getMessage());
      assertArrayEquals(damaged, Files.readAllBytes(epochFile));
      assertArrayEquals(lockBefore, Files.readAllBytes(db.resolve(OwnerLock.FILE_NAME)));
    }
    Files.delete(epochFile); // what the message offers: continue after the epoch the lock file records
    try (OwnerLock next = OwnerLock.tryAcquire(db, "node-3")) {
      assertNotNull(next, "a refused acquire released the lock");
      assertEquals(3, next.epoch());
    }
  }

  /** A lock file written by a version that kept the epoch only there: the next owner continues after it. */
  @Test
  void anEpochKeptOnlyInTheLockFileIsContinued() throws Exception {
    Path db = dir.resolve("older");
    Files.createDirectories(db);
    write(db.resolve(OwnerLock.FILE_NAME), ByteBuffer.allocate(8 + 6).putLong(41).put("node-x".getBytes(StandardCharsets.UTF_8)).array());
    try (OwnerLock next = OwnerLock.tryAcquire(db, "node-y")) {
      assertEquals(42, next.epoch());
    }
  }

  private static void write(Path file, byte[] bytes) {
    try {
      Files.write(file, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Takes the lock, says so, then waits to be killed. */
  public static final class LockHolder {
    public static void main(String[] args) throws Exception {
      OwnerLock lock = OwnerLock.tryAcquire(Path.of(args[0]), "holder-process");
      System.out.println("locked " + lock.epoch());
      System.out.flush();
      Thread.currentThread().join(); // until killed
    }
  }
}
