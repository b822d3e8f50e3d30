package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.put;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.StorageStats;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Merged write groups through the pipeline. Every schedule is forced: commit A is held at
 * VALIDATED on the only executor while the others queue behind it, so on release the executor
 * finds them all queued and takes them as one group.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class WriteGroupPipelineTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private CommitlaneDatabase open(Map<String, Object> more) {
    Map<String, Object> m = new HashMap<>(more);
    m.put("commit-threads", 1);
    m.put("wal", "off");
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  /** Commit A alone and hold it at VALIDATED; run {@code queueBehind}; release A and await everything. */
  private static List<CompletionStage<CommitResult>> behindHeldCommit(CommitlaneDatabase db,
      java.util.function.Consumer<List<CompletionStage<CommitResult>>> queueBehind) throws Exception {
    List<CompletionStage<CommitResult>> commits = new ArrayList<>();
    try (StageControl stages = StageControl.install(db.storage())) {
      Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> "A".equals(c.tag()));
      commits.add(put(db, "A", "a", "1"));
      hold.awaitArrivals(1, Duration.ofSeconds(30)); // the only executor holds A; everything after it queues
      queueBehind.accept(commits);
      hold.release();
    }
    for (CompletionStage<CommitResult> c : commits) {
      c.toCompletableFuture().handle((r, e) -> null).get();
    }
    return commits;
  }

  @ParameterizedTest
  @ValueSource(strings = {"parallel", "serial"})
  void queuedCommitsAreOneGroupAndAConflictingMemberFailsAlone(String validation) throws Exception {
    try (CommitlaneDatabase db = open(Map.of("occ-validation", validation))) {
      db.storage().put(b("k2"), b("old"));
      List<Object> completed = new CopyOnWriteArrayList<>();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.COMPLETED) {
          completed.add(c.tag());
        }
      });
      List<CompletionStage<CommitResult>> commits = behindHeldCommit(db, cs -> {
        cs.add(put(db, "B", "k1", "B"));
        Transaction c = db.begin().tag("C");
        c.getUntracked(b("elsewhere")); // C has a snapshot, which predates B's write
        c.put(b("k1"), b("C")); // writes what B writes
        cs.add(db.commit(c));
        cs.add(put(db, "D", "k2", "D"));
        Transaction e = db.begin().tag("E");
        e.put(b("copy"), e.get(b("k2"))); // read k2 = old; D writes k2 earlier in the group
        cs.add(db.commit(e));
      });
      await(commits.get(0));
      await(commits.get(1));
      assertConflict(commits.get(2));
      await(commits.get(3));
      assertConflict(commits.get(4));
      assertEquals("B", s(db.storage().get(b("k1"))));
      assertEquals("D", s(db.storage().get(b("k2"))));
      assertNull(db.storage().get(b("copy")));
      assertEquals(List.of("A", "B", "C", "D", "E"), completed, "one executor: completion in dispatch order");
      PipelineStats stats = db.stats();
      StorageStats storage = stats.storage();
      assertEquals(1, storage.groups(), "B..E were written as one group");
      assertEquals(4, storage.groupMembers());
      assertEquals(2, storage.groupConflicts());
      assertEquals(1, stats.groupSize().getTotalCount());
      assertEquals(4, stats.groupSize().getMaxValue());
      assertEquals(3, stats.committed());
      assertEquals(2, stats.conflicts());
      assertTrue(await(commits.get(3)).version() > await(commits.get(1)).version(), "versions follow member order");
    }
  }

  @Test
  void maxMembersSplitsTheQueueIntoSeveralGroups() throws Exception {
    try (CommitlaneDatabase db = open(Map.of("write-groups.max-members", 2))) {
      behindHeldCommit(db, cs -> {
        for (String t : List.of("B", "C", "D", "E", "F")) {
          cs.add(put(db, t, "k" + t, t));
        }
      });
      StorageStats storage = db.stats().storage();
      assertEquals(2, storage.groups(), "[B C] [D E], then F alone");
      assertEquals(4, storage.groupMembers());
      assertEquals("F", s(db.storage().get(b("kF"))));
    }
  }

  @Test
  void aCommitThatWouldPassTheKeyBoundStartsTheNextGroup() throws Exception {
    try (CommitlaneDatabase db = open(Map.of("write-groups.max-keys", 3))) {
      behindHeldCommit(db, cs -> {
        cs.add(db.commit(db.begin().put(b("b1"), b("x")).put(b("b2"), b("x"))));
        cs.add(db.commit(db.begin().put(b("c1"), b("x")).put(b("c2"), b("x"))));
        cs.add(db.commit(db.begin().put(b("d1"), b("x"))));
      });
      StorageStats storage = db.stats().storage();
      assertEquals(1, storage.groups(), "B alone (with C it would be 4 keys), then [C D]");
      assertEquals(2, storage.groupMembers());
      assertEquals(4, storage.commits(), "A, B, C and D each committed once");
    }
  }

  @Test
  void mergingOffWritesEachCommitAlone() throws Exception {
    try (CommitlaneDatabase db = open(Map.of("write-groups.enabled", "off"))) {
      behindHeldCommit(db, cs -> {
        for (String t : List.of("B", "C", "D")) {
          cs.add(put(db, t, "k" + t, t));
        }
      });
      assertEquals(0, db.stats().storage().groups());
      assertEquals(4, db.stats().committed());
    }
  }

  @Test
  void aLoneCommitNeverWaitsForCompany() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      for (int i = 0; i < 20; i++) {
        await(put(db, null, "k" + i, "v"));
      }
      assertEquals(0, db.stats().storage().groups(), "one commit in flight: nothing queued to merge");
    }
  }

  @Test
  void eachMemberGetsItsOwnLogRecordInMemberOrderAndAConflictingMemberIsAbortedInTheLog() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      List<CompletionStage<CommitResult>> commits = behindHeldCommit(db, cs -> {
        for (String t : List.of("B", "C", "D")) {
          Transaction txn = db.begin().tag(t).useLog("changes").addLogEntry(t.getBytes(StandardCharsets.UTF_8));
          txn.getUntracked(b("elsewhere")); // a snapshot, which predates B's write
          txn.put(b("C".equals(t) ? "kB" : "k" + t), b(t)); // C writes what B writes: conflict
          cs.add(db.commit(txn));
        }
      });
      LogAppend b = LogAppend.of(await(commits.get(1))).orElseThrow();
      assertConflict(commits.get(2));
      LogAppend d = LogAppend.of(await(commits.get(3))).orElseThrow();
      assertTrue(d.position() > b.position(), "log order is member order");
      List<String> entries = new ArrayList<>();
      try (LogReader reader = db.transactionLog("changes").reader(ReadRequest.fromStart())) {
        for (LogRecord r = reader.next(); r != null; r = reader.next()) {
          java.nio.ByteBuffer e = r.entries().get(0).duplicate();
          byte[] bytes = new byte[e.remaining()];
          e.get(bytes);
          entries.add(new String(bytes, StandardCharsets.UTF_8));
        }
      }
      assertEquals(List.of("B", "D"), entries, "C's record was aborted with C");
      assertEquals(1, db.stats().storage().groups());
    }
  }

  @Test
  void badWriteGroupSettingsNameTheirField() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> settings(testKit.system(), Map.of("write-groups.max-members", 1, "write-groups.max-bytes", "12 bytes",
            "write-groups.enabled", "sometimes")));
    assertTrue(e.getMessage().contains("commitlane.write-groups.max-members"), e.getMessage());
    assertTrue(e.getMessage().contains("commitlane.write-groups.max-bytes"), e.getMessage());
    assertTrue(e.getMessage().contains("commitlane.write-groups.enabled"), e.getMessage());
  }

  private static void assertConflict(CompletionStage<CommitResult> commit) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(commit));
    assertInstanceOf(ConflictException.class, e.getCause());
  }
}
