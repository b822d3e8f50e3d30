package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.commitlane.actors.DatabaseProtocol.BackedUp;
import io.commitlane.actors.DatabaseProtocol.Backup;
import io.commitlane.actors.DatabaseProtocol.BackupReply;
import io.commitlane.actors.DatabaseProtocol.Checkpoint;
import io.commitlane.actors.DatabaseProtocol.CheckpointReply;
import io.commitlane.actors.DatabaseProtocol.CheckpointTaken;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.RestoreOptions;
import io.commitlane.storage.Transaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Backup} and {@link Checkpoint} on a database's reference: the copy runs on the lifecycle
 * dispatcher while the actor serves other requests, and each request gets exactly one reply, also
 * when the database closes under the copy, another writer holds the backup directory, a path
 * cannot serve or the disk is full.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class BackupProtocolTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  private CommitlaneDatabase open(Faults faults) {
    return CommitlaneDatabase.open(testKit.system(), dir.resolve("db"),
        PipelineTestSupport.settings(testKit.system(), Map.of("wal", "off", "commit-threads", 1)), faults);
  }

  private static void write(CommitlaneDatabase db, String key, String value) throws Exception {
    Transaction t = db.begin().useLog("main");
    t.put(b(key), b(value));
    t.addLogEntry(b(key + "=" + value));
    await(db.commit(t));
  }

  /** Holds the copy where it starts on the logs until {@link #resume}. */
  private static final class Pause implements Runnable {
    final CountDownLatch reached = new CountDownLatch(1);
    final CountDownLatch resume = new CountDownLatch(1);
    final AtomicReference<String> thread = new AtomicReference<>();

    @Override
    public void run() {
      thread.set(Thread.currentThread().getName());
      reached.countDown();
      try {
        resume.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void awaitReached() throws InterruptedException {
      assertTrue(reached.await(60, TimeUnit.SECONDS), "the copy never reached the logs");
    }
  }

  @Test
  void aBackupAndACheckpointRunOffTheActorsThreadAndReplyWhenComplete() throws Exception {
    Faults faults = new Faults();
    Pause pause = new Pause();
    faults.pauseBeforeLogCopy(pause);
    Path backups = dir.resolve("backups");
    BackedUp backedUp;
    CheckpointTaken taken;
    try (CommitlaneDatabase db = open(faults)) {
      for (int i = 0; i < 10; i++) {
        write(db, "k" + i, "v" + i);
      }
      ActorRef<Request> ref = db.ref();
      TestProbe<BackupReply> backupReplies = testKit.createTestProbe();
      ref.tell(new Backup(backups, 1, backupReplies.ref()));
      pause.awaitReached();

      // The backup is held mid-copy; the actor serves other requests meanwhile.
      TestProbe<DatabaseProtocol.ReadReply> reads = testKit.createTestProbe();
      ref.tell(new DatabaseProtocol.Get(Key.of(b("k3")), 2, reads.ref()));
      assertEquals("v3", s(reads.expectMessageClass(Values.class, WAIT).values().get(0)));
      TestProbe<DatabaseProtocol.WriteReply> writes = testKit.createTestProbe();
      ref.tell(new DatabaseProtocol.Write(List.of(Mutation.put(b("during"), b("backup"))), null, 3, writes.ref()));
      writes.expectMessageClass(DatabaseProtocol.Committed.class, WAIT);
      backupReplies.expectNoMessage(Duration.ZERO); // no reply before the backup is complete
      assertTrue(pause.thread.get().contains("commitlane.lifecycle-dispatcher"), pause.thread.get());
      pause.resume.countDown();

      backedUp = backupReplies.expectMessageClass(BackedUp.class, WAIT);
      assertEquals(1, backedUp.correlation());
      assertTrue(backedUp.backup().complete());
      assertEquals(List.of("main"), backedUp.backup().logs().stream().map(l -> l.name()).toList());
      backupReplies.expectNoMessage(Duration.ofMillis(200));

      faults.reset();
      write(db, "k10", "v10");
      TestProbe<CheckpointReply> checkpointReplies = testKit.createTestProbe();
      ref.tell(new Checkpoint(dir.resolve("copy"), 4, checkpointReplies.ref()));
      taken = checkpointReplies.expectMessageClass(CheckpointTaken.class, WAIT);
      assertEquals(4, taken.correlation());
      assertEquals(dir.resolve("copy").toAbsolutePath().normalize(), taken.checkpoint().path());
      ref.tell(new Backup(backups, 5, backupReplies.ref()));
      assertEquals(backedUp.backup().id() + 1, backupReplies.expectMessageClass(BackedUp.class, WAIT).backup().id(),
          "the next backup of the directory");
    }
    BackupStore store = BackupStore.at(backups);
    store.verify(backedUp.backup().id(), false);
    store.restore(backedUp.backup().id(), dir.resolve("restored"), RestoreOptions.defaults());
    try (CommitlaneDatabase restored = Commitlane.get(testKit.system()).open(dir.resolve("restored"))) {
      assertEquals("v9", s(restored.storage().get(b("k9"))), "acknowledged before the backup");
    }
    try (CommitlaneDatabase copy = Commitlane.get(testKit.system()).open(dir.resolve("copy"))) {
      assertEquals("v10", s(copy.storage().get(b("k10"))), "acknowledged before the checkpoint");
      assertEquals("backup", s(copy.storage().get(b("during"))));
    }
  }

  @Test
  void theDatabaseClosingUnderABackupOrACheckpointAnswersItOnceAsClosedAndKeepsNothingOfIt() throws Exception {
    for (String copy : List.of("backup", "checkpoint")) {
      Faults faults = new Faults();
      Pause pause = new Pause();
      faults.pauseBeforeLogCopy(pause);
      CommitlaneDatabase db = open(faults);
      write(db, "k-" + copy, "acknowledged");
      ActorRef<Request> ref = db.ref();
      TestProbe<DatabaseProtocol.Reply> replies = testKit.createTestProbe();
      Path target = dir.resolve(copy + "-target");
      ref.tell(copy.equals("backup") ? new Backup(target, 1, replies.ref().narrow()) : new Checkpoint(target, 1, replies.ref().narrow()));
      pause.awaitReached();
      CompletableFuture<?> closed = db.closeAsync().toCompletableFuture();
      // The close drains, then shuts the logs the copy is about to read; RocksDB's close waits for the copy.
      replies.awaitAssert(WAIT, () -> {
        assertTrue(db.pipeline().logs().isClosed());
        return null;
      });
      pause.resume.countDown();
      FailedReply f = expectFailed(replies, WAIT);
      assertEquals(1, f.correlation());
      assertEquals(FailureReason.DATABASE_CLOSED, f.reason(), f.toString());
      closed.get(60, TimeUnit.SECONDS);
      replies.expectNoMessage(Duration.ofMillis(200));
      if (copy.equals("backup")) {
        assertEquals(List.of(), BackupStore.at(target).list(), "nothing of the backup is kept");
      } else {
        assertFalse(Files.exists(target), "nothing of the checkpoint is left");
      }

      // Sent to the stopped database: answered from the dead letters, once each.
      testKit.createTestProbe().expectTerminated(ref, WAIT);
      ref.tell(new Backup(target, 2, replies.ref().narrow()));
      ref.tell(new Checkpoint(dir.resolve("late"), 3, replies.ref().narrow()));
      for (long correlation = 2; correlation <= 3; correlation++) {
        FailedReply late = expectFailed(replies, WAIT);
        assertEquals(FailureReason.DATABASE_CLOSED, late.reason());
      }
      replies.expectNoMessage(Duration.ofMillis(200));
    }
    try (CommitlaneDatabase reopened = open(new Faults())) {
      assertEquals("acknowledged", s(reopened.storage().get(b("k-backup"))));
      assertEquals("acknowledged", s(reopened.storage().get(b("k-checkpoint"))));
    }
  }

  @Test
  void aSecondWriterAndPathsThatCannotServeAreRefusedTyped() throws Exception {
    try (CommitlaneDatabase db = open(new Faults())) {
      write(db, "a", "1");
      ActorRef<Request> ref = db.ref();
      TestProbe<BackupReply> backups = testKit.createTestProbe();
      TestProbe<CheckpointReply> checkpoints = testKit.createTestProbe();
      Path directory = dir.resolve("backups");

      // Another backup of the directory is running (held in its first step): the second is refused, retryable.
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture<BackupInfo> first = db.backup(BackupStore.at(directory), (phase, done, total) -> {
        if (phase.equals("rocksdb") && done == 0) {
          started.countDown();
          try {
            release.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      });
      assertTrue(started.await(60, TimeUnit.SECONDS));
      ref.tell(new Backup(directory, 1, backups.ref()));
      FailedReply inUse = expectFailed(backups, WAIT);
      assertEquals(FailureReason.IN_USE, inUse.reason(), inUse.toString());
      assertTrue(inUse.retryable());
      release.countDown();
      first.get(60, TimeUnit.SECONDS);
      ref.tell(new Backup(directory, 2, backups.ref()));
      assertEquals(2, backups.expectMessageClass(BackedUp.class, WAIT).correlation(), "sent again once the other finished");

      Files.createDirectories(dir.resolve("exists"));
      ref.tell(new Checkpoint(dir.resolve("exists"), 3, checkpoints.ref()));
      assertInvalid(expectFailed(checkpoints, WAIT), 3, "already exists");
      ref.tell(new Checkpoint(db.path().resolve("inside"), 4, checkpoints.ref()));
      assertInvalid(expectFailed(checkpoints, WAIT), 4, "inside");
      assertFalse(Files.exists(db.path().resolve("inside")));
      ref.tell(new Backup(db.path().resolve("inside"), 5, backups.ref()));
      assertInvalid(expectFailed(backups, WAIT), 5, "inside");
      Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
      ref.tell(new Backup(file, 6, backups.ref()));
      assertInvalid(expectFailed(backups, WAIT), 6, "not a directory");
      backups.expectNoMessage(Duration.ofMillis(200));
      checkpoints.expectNoMessage(Duration.ZERO);
      write(db, "b", "2"); // the database is unharmed
    }

    assertThrows(InvalidRequestException.class, () -> new Backup(null, 1, testKit.<BackupReply>createTestProbe().ref()));
    assertThrows(InvalidRequestException.class, () -> new Checkpoint(null, 1, testKit.<CheckpointReply>createTestProbe().ref()));
    assertTrue(new Backup(Path.of("relative/backups"), 1, testKit.<BackupReply>createTestProbe().ref()).directory().isAbsolute(),
        "resolved where the request is built");
  }

  /** On a real full disk (a small tmpfs; skipped where mounting is not allowed). */
  @Test
  void aFullDiskIsAnsweredNoSpaceAndLeavesTheDatabaseWritable() throws Exception {
    Path mount = Files.createDirectories(dir.resolve("small-disk"));
    assumeTrue(mountTmpfs(mount, "2m"), "cannot mount a tmpfs here");
    try (CommitlaneDatabase db = open(new Faults())) {
      Random random = new Random(11);
      for (int i = 0; i < 64; i++) {
        byte[] value = new byte[64 << 10];
        random.nextBytes(value); // incompressible: 4 MiB of table files
        db.storage().put(b("big" + i), value);
      }
      db.storage().flush();
      TestProbe<BackupReply> backups = testKit.createTestProbe();
      db.ref().tell(new Backup(mount.resolve("backups"), 1, backups.ref()));
      FailedReply refused = expectFailed(backups, WAIT);
      assertEquals(FailureReason.NO_SPACE, refused.reason(), refused.toString());
      assertFalse(refused.retryable());

      TestProbe<CheckpointReply> checkpoints = testKit.createTestProbe();
      db.ref().tell(new Checkpoint(mount.resolve("copy"), 2, checkpoints.ref())); // another file system: copied, not linked
      FailedReply full = expectFailed(checkpoints, WAIT);
      assertEquals(FailureReason.NO_SPACE, full.reason(), full.toString());
      assertFalse(Files.exists(mount.resolve("copy")), "a failed checkpoint leaves nothing");
      write(db, "after", "writable");
    } finally {
      unmount(mount);
    }
  }

  private static void assertInvalid(FailedReply f, long correlation, String says) {
    assertEquals(correlation, f.correlation());
    assertEquals(FailureReason.INVALID_REQUEST, f.reason(), f.toString());
    assertFalse(f.retryable());
    assertTrue(f.message().contains(says), f.message());
  }

  private static boolean mountTmpfs(Path at, String size) throws InterruptedException {
    try {
      Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", at.toString())
          .redirectErrorStream(true).start();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  private static void unmount(Path at) throws Exception {
    new ProcessBuilder("umount", at.toString()).redirectErrorStream(true).start().waitFor(30, TimeUnit.SECONDS);
  }
}
