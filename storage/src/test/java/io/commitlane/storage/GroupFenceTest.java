package io.commitlane.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two merged groups whose first members scanned the range the other group's second member
 * writes: each group holds a fence when its second member publishes. Forced with a barrier at the
 * first members' VALIDATED stage. A later member must not wait for the other group's fence (each
 * group would wait for the other for ever); the first to meet the other's fence conflicts, and
 * both groups finish (the other may commit once the first group released its fence).
 */
class GroupFenceTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void laterGroupMembersConflictInsteadOfWaitingForAnotherGroupsFence() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (Database db = Database.open(dir.resolve("db"))) {
      db.put(b("x/0"), b("v")); // each scan shows a key: its interval is fenced
      db.put(b("y/0"), b("v"));
      CyclicBarrier bothScannersValidated = new CyclicBarrier(2);
      db.addStageListener((stage, commit) -> {
        if (stage == CommitStage.VALIDATED && "scanner".equals(commit.tag())) {
          try {
            bothScannersValidated.await();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
      });
      GroupResult[] results = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
        CompletableFuture<GroupResult> a = CompletableFuture.supplyAsync(() -> group(db, "x/", "a1", "y/1"), threads);
        CompletableFuture<GroupResult> c = CompletableFuture.supplyAsync(() -> group(db, "y/", "c1", "x/1"), threads);
        return new GroupResult[] {a.join(), c.join()};
      });
      int conflicted = 0;
      for (GroupResult r : results) {
        assertTrue(r.isCommitted(0), "the scanning member commits");
        if (!r.isCommitted(1)) {
          assertInstanceOf(ConflictException.class, r.failure(1));
          conflicted++;
        }
      }
      assertTrue(conflicted >= 1, "a member that met the other group's fence conflicted");
      assertEquals(results[1].isCommitted(1), db.get(b("x/1")) != null);
      assertEquals(results[0].isCommitted(1), db.get(b("y/1")) != null);
    } finally {
      threads.shutdownNow();
    }
  }

  /** A group of a member that scans {@code scanned} and writes {@code own}, then one that writes {@code intoOther}. */
  private static GroupResult group(Database db, String scanned, String own, String intoOther) {
    Transaction scanner = db.begin().tag("scanner");
    scanner.list(KeyRange.prefix(b(scanned)));
    scanner.put(b(own), b("v"));
    Transaction writer = db.begin();
    writer.put(b(intoOther), b("v"));
    return db.commitGroup(List.of(scanner, writer));
  }
}
