package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.StorageStats;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Commits through the pipeline whose key sets are disjoint never conflict, with 16 lock buckets
 * (so they share buckets), merged write groups on and off, under both blind-write settings: when
 * they queue behind a held commit (every baseline predates every write) and when workers keep
 * many commits in flight on two executors.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class DisjointKeysPipelineTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  static Stream<Arguments> settingsGrid() {
    return Stream.of("conflict", "ordered").flatMap(blind -> Stream.of("on", "off").map(groups -> Arguments.of(blind, groups)));
  }

  private CommitlaneDatabase open(String blindWrites, String writeGroups, int commitThreads) {
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), Map.of(
        "commit-threads", commitThreads, "wal", "off", "occ-lock-buckets", 16, "occ-blind-writes", blindWrites,
        "write-groups.enabled", writeGroups)));
  }

  /** Eight keys per commit, each read, then written: a transaction that reads and writes only its own keys. */
  private static Transaction readModifyWrite(CommitlaneDatabase db, String owner, int keys) {
    Transaction t = db.begin().tag(owner);
    for (int k = 0; k < keys; k++) {
      byte[] key = b(owner + "/" + k);
      t.get(key);
      t.put(key, b(owner));
    }
    return t;
  }

  @ParameterizedTest
  @MethodSource("settingsGrid")
  void commitsQueuedBehindAHeldCommitOnSharedBucketsAllCommit(String blindWrites, String writeGroups) throws Exception {
    try (CommitlaneDatabase db = open(blindWrites, writeGroups, 1)) {
      List<CompletionStage<CommitResult>> commits = new ArrayList<>();
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> "held".equals(c.tag()));
        commits.add(db.commit(readModifyWrite(db, "held", 8)));
        hold.awaitArrivals(1, Duration.ofSeconds(30)); // the only executor holds it; the rest queue with older baselines than its write
        for (int i = 0; i < 12; i++) {
          commits.add(db.commit(readModifyWrite(db, "queued-" + i, 8)));
        }
        hold.release();
      }
      for (CompletionStage<CommitResult> c : commits) {
        await(c);
      }
      StorageStats s = db.storage().stats();
      assertEquals(0, s.conflicts(), "8 keys each on 16 buckets share buckets with the held commit, never a key");
      assertEquals(13, s.commits());
      if ("on".equals(writeGroups)) {
        assertTrue(s.groups() > 0, "the queued commits met in a merged group");
      }
    }
  }

  @ParameterizedTest
  @MethodSource("settingsGrid")
  void workersWithManyCommitsInFlightOnDisjointKeysNeverConflict(String blindWrites, String writeGroups) throws Exception {
    int workers = 4;
    int perWorker = 400;
    int inFlight = 8;
    try (CommitlaneDatabase db = open(blindWrites, writeGroups, 2)) {
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        int worker = w;
        threads.add(new Thread(() -> {
          // A key set is used by one commit in flight at a time: taken before the commit, returned when it completes.
          BlockingQueue<Integer> freeKeySets = new ArrayBlockingQueue<>(inFlight);
          for (int k = 0; k < inFlight; k++) {
            freeKeySets.add(k);
          }
          try {
            for (int i = 0; i < perWorker; i++) {
              int keySet = freeKeySets.take();
              db.commit(readModifyWrite(db, "w" + worker + "-" + keySet, 4)).whenComplete((r, e) -> {
                if (e != null) {
                  failures.add(e);
                }
                freeKeySets.add(keySet);
              });
            }
            for (int k = 0; k < inFlight; k++) {
              if (freeKeySets.poll(30, TimeUnit.SECONDS) == null) {
                failures.add(new AssertionError("worker " + worker + ": commits still in flight after 30 s"));
              }
            }
          } catch (InterruptedException e) {
            failures.add(e);
          }
        }, "disjoint-worker-" + w));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      assertEquals(List.of(), failures);
      StorageStats s = db.storage().stats();
      assertEquals(0, s.conflicts());
      assertEquals((long) workers * perWorker, s.commits());
    }
  }
}
