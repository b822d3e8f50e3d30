package io.commitlane.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import io.commitlane.testkit.CrashHarness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnerLockTest {
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
