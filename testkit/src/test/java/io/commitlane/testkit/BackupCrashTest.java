package io.commitlane.testkit;

import static io.commitlane.testkit.BackupWorkload.COMMITS;
import static io.commitlane.testkit.BackupWorkload.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.RestoreOptions;
import io.commitlane.testkit.pekko.CommitlaneTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 inside a backup and inside a restore: earlier backups stay intact and verifiable, the
 * interrupted backup is reported incomplete and removed by the next writer, the database reopens
 * with every acknowledged commit, and a restore interrupted leaves no half database at the target.
 */
@CommitlaneTest
@ExtendWith(LogCapturingExtension.class)
class BackupCrashTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  @Test
  void aKillInsideABackupLeavesEarlierBackupsIntactAndTheDatabaseWhole() throws Exception {
    CrashRun run = CrashHarness.of(BackupWorkload.class, dir).args("at=backup").killAt("IN_BACKUP").run();
    assertTrue(run.killed(), run.stderr());
    assertEquals(2 * COMMITS, run.acknowledged().size());
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    List<BackupInfo> listed = store.list();
    assertEquals(List.of(true, false), listed.stream().map(BackupInfo::complete).toList(), listed.toString());
    store.verify(1, true);
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir.resolve("db"), BackupWorkload.settings(testKit.system()))) {
      for (int i = 0; i < 2 * COMMITS; i++) {
        assertEquals(Integer.toString(i), str(db.storage().get(bytes("k/" + i))), "k/" + i);
      }
      BackupInfo next = db.backup(store).get();
      assertEquals(List.of(1, next.id()), store.list().stream().map(BackupInfo::id).toList(), "the interrupted one was removed");
    }
    store.restore(1, dir.resolve("r1"), RestoreOptions.defaults());
    assertRestored(dir.resolve("r1"), COMMITS);
  }

  @Test
  void aKillInsideARestoreLeavesTheBackupAndNoHalfDatabase() throws Exception {
    CrashRun run = CrashHarness.of(BackupWorkload.class, dir).args("at=restore").killAt("IN_RESTORE").run();
    assertTrue(run.killed(), run.stderr());
    assertFalse(Files.exists(dir.resolve("restored")), "the target appears only whole");
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    store.verify(1, false);
    store.restore(1, dir.resolve("restored"), RestoreOptions.defaults());
    assertRestored(dir.resolve("restored"), COMMITS);
    try (var left = Files.list(dir)) {
      assertEquals(List.of(), left.filter(p -> p.getFileName().toString().contains(".restoring-")).toList());
    }
  }

  private void assertRestored(Path path, int commits) {
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(path, BackupWorkload.settings(testKit.system()))) {
      for (int i = 0; i < commits; i++) {
        assertEquals(Integer.toString(i), str(db.storage().get(bytes("k/" + i))), "k/" + i);
      }
      assertNull(db.storage().get(bytes("k/" + (2 * COMMITS - 1))), "nothing after the backup");
    }
  }

  private static String str(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
