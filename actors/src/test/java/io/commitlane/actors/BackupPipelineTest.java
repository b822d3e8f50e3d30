package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.BackupCorruptException;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.RestoreOptions;
import io.commitlane.storage.Transaction;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Backups of a database with transaction logs, through the pipeline's facade: logs captured and checked, cancellation. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class BackupPipelineTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  private CommitlaneDatabase open(Path path) {
    return Commitlane.get(testKit.system()).open(path,
        PipelineTestSupport.settings(testKit.system(), java.util.Map.of("wal", "off", "commit-threads", 1)));
  }

  private static void write(CommitlaneDatabase db, String key, String value) throws Exception {
    Transaction t = db.begin().useLog("main");
    t.put(b(key), b(value));
    t.addLogEntry(b(key));
    await(db.commit(t));
  }

  @Test
  void aFlippedByteInALogSegmentIsNamedByVerifyAndRefusedByRestore() throws Exception {
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    BackupInfo info;
    try (CommitlaneDatabase db = open(dir.resolve("db"))) {
      for (int i = 0; i < 20; i++) {
        write(db, "k" + i, "v" + i);
      }
      info = db.backup(store).get(1, TimeUnit.MINUTES);
    }
    assertEquals(List.of("main"), info.logs().stream().map(l -> l.name()).toList());
    Path segment;
    try (var files = Files.list(dir.resolve("backups/commitlane/" + info.id() + "/txlog/main"))) {
      segment = files.filter(p -> p.toString().endsWith(".txlog")).findFirst().orElseThrow();
    }
    flip(segment, 40);
    BackupCorruptException e = assertThrows(BackupCorruptException.class, () -> store.verify(info.id(), false));
    assertEquals(dir.resolve("backups").relativize(segment), e.file());
    assertThrows(BackupCorruptException.class, () -> store.restore(info.id(), dir.resolve("r"), RestoreOptions.defaults()));
    assertFalse(Files.exists(dir.resolve("r")));
    flip(segment, 40);
    store.restore(info.id(), dir.resolve("r"), RestoreOptions.defaults());
    try (CommitlaneDatabase r = open(dir.resolve("r"))) {
      assertEquals("v19", s(r.storage().get(b("k19"))));
    }
  }

  @Test
  void cancellingTheFutureStopsTheBackupAndKeepsNothingOfIt() throws Exception {
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    try (CommitlaneDatabase db = open(dir.resolve("db"))) {
      write(db, "a", "1");
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch cancelled = new CountDownLatch(1);
      CompletableFuture<BackupInfo> running = db.backup(store, (phase, done, total) -> {
        if (phase.equals("rocksdb") && done == 0) {
          started.countDown();
          try {
            cancelled.await(30, TimeUnit.SECONDS); // the caller cancels here, deterministically
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
          }
        }
      });
      assertTrue(started.await(30, TimeUnit.SECONDS));
      assertTrue(running.cancel(true));
      assertFalse(running.isDone(), "done only once the backup has stopped");
      cancelled.countDown();
      assertThrows(CancellationException.class, running::join);
      assertTrue(running.isCancelled());
      write(db, "b", "2");
      BackupInfo next = db.backup(store).get(1, TimeUnit.MINUTES);
      assertEquals(List.of(next.id()), store.list().stream().map(BackupInfo::id).toList(), "nothing of the cancelled one");
    }
  }

  @Test
  void aSecondBackupLinksTheSealedLogSegmentsTheFirstHoldsAndRestoresWhole() throws Exception {
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    BackupInfo first;
    BackupInfo second;
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir.resolve("db"), PipelineTestSupport.settings(
        testKit.system(), java.util.Map.of("wal", "off", "commit-threads", 1, "txlog.max-segment-size", "4 KiB")))) {
      for (int i = 0; i < 200; i++) {
        write(db, "k" + i, "v" + i); // about 40 segments of 4 KiB
      }
      first = db.backup(store).get(1, TimeUnit.MINUTES);
      write(db, "last", "x");
      second = db.backup(store).get(1, TimeUnit.MINUTES);
    }
    long firstBytes = first.logs().get(0).bytes();
    long secondBytes = second.logs().get(0).bytes();
    assertTrue(secondBytes * 10 < firstBytes, "the second copied " + secondBytes + " log bytes, the first " + firstBytes);
    store.verify(second.id(), false);
    store.delete(first.id()); // its links go, the second's stay
    store.verify(second.id(), false);
    store.restore(second.id(), dir.resolve("r"), RestoreOptions.defaults());
    try (CommitlaneDatabase r = open(dir.resolve("r"))) {
      assertEquals("v0", s(r.storage().get(b("k0"))));
      assertEquals("x", s(r.storage().get(b("last"))));
    }
  }

  private static void flip(Path file, long at) throws Exception {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
      ch.read(one, at);
      one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
      ch.write(one, at);
    }
  }
}
