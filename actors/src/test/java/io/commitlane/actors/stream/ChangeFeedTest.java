package io.commitlane.actors.stream;

import static io.commitlane.actors.stream.StreamTestSupport.await;
import static io.commitlane.actors.stream.StreamTestSupport.b;
import static io.commitlane.actors.stream.StreamTestSupport.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.ClassTestKit;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.Hold;
import io.commitlane.actors.LogAppend;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.txlog.CorruptLogFrameException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import io.commitlane.txlog.TransactionLogException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

@ParameterizedClass(name = "txlog.append = {0}")
@ValueSource(strings = {"serialized", "leaderless", "actor"})
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ChangeFeedTest {
  @Parameter String append;

  /** Every database of these tests appends in the parameter's mode. */
  private CommitlaneDatabase open(ActorSystem<?> system, Path dir, Map<String, Object> overrides) {
    Map<String, Object> m = new java.util.HashMap<>(overrides);
    m.put("txlog.append", append);
    return StreamTestSupport.open(system, dir, m);
  }
  private static final String LOG = "changes";
  @JUnit5TestKit static ActorTestKit testKit;
  private static ActorSystem<?> system;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() {
    system = testKit.system();
  }


  private static WriteRequest<Integer> logged(int i) {
    return WriteRequest.builder(i).put(b("k" + i), b("v" + i)).log(LOG).logEntry(b("e" + i)).tag("c" + i).build();
  }

  /** Commit records {@code from..to-1} through the unordered flow; returns their log positions by index. */
  private static long[] commit(CommitlaneDatabase db, int from, int to) throws Exception {
    List<WriteOutcome<Integer>> outcomes = await(Source.range(from, to - 1).map(ChangeFeedTest::logged)
        .via(CommitFlow.unordered(db, CommitFlowSettings.defaults().withParallelism(8)))
        .runWith(Sink.seq(), system));
    long[] positions = new long[to - from];
    for (WriteOutcome<Integer> o : outcomes) {
      CommitResult r = assertInstanceOf(WriteOutcome.Committed.class, o).result();
      positions[o.correlation() - from] = LogAppend.of(r).orElseThrow().position();
    }
    return positions;
  }

  private static String entry(LogRecord r) {
    return s(r.entries().get(0));
  }

  private static void assertLogOrder(List<LogRecord> records) {
    for (int i = 1; i < records.size(); i++) {
      assertTrue(records.get(i).position() > records.get(i - 1).position(), "log order at " + i);
    }
  }

  @Test
  void theCurrentFeedSeesEveryCommittedRecordOnceInLogOrder() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      long[] positions = commit(db, 0, 300);
      List<LogRecord> feed = await(ChangeFeed.current(db, LOG, ReadRequest.fromStart()).runWith(Sink.seq(), system));
      assertEquals(300, feed.size());
      assertLogOrder(feed);
      long[] sorted = positions.clone();
      java.util.Arrays.sort(sorted);
      assertEquals(java.util.Arrays.stream(sorted).boxed().toList(), feed.stream().map(LogRecord::position).toList());
      for (LogRecord r : feed) {
        int i = Integer.parseInt(entry(r).substring(1));
        assertEquals(positions[i], r.position(), "record e" + i + " is where its commit said");
      }
    }
  }

  @Test
  void theLiveFeedFollowsCommitsAsTheyLand() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      commit(db, 0, 50);
      CompletionStage<List<LogRecord>> feed = ChangeFeed.live(db, LOG, ReadRequest.fromStart()).take(500).runWith(Sink.seq(), system);
      long[] positions = commit(db, 50, 250);
      commit(db, 250, 500);
      List<LogRecord> records = await(feed);
      assertEquals(500, records.size());
      assertLogOrder(records);
      assertEquals(IntStream.range(0, 500).mapToObj(i -> "e" + i).sorted().toList(),
          records.stream().map(ChangeFeedTest::entry).sorted().toList(), "each record exactly once");
      assertTrue(records.stream().anyMatch(r -> r.position() == positions[0]));
    }
  }

  @Test
  void theFeedNeverEmitsARecordBeforeItsTransactionCommitted() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      commit(db, 0, 1);
      TestProbe<String> probe = testKit.createTestProbe();
      AtomicBoolean released = new AtomicBoolean();
      ChangeFeed.live(db, LOG, ReadRequest.fromStart())
          .runForeach(r -> probe.ref().tell(entry(r) + (released.get() ? "" : " (while held)")), system);
      assertEquals("e0 (while held)", probe.receiveMessage(), "e0 committed before the hold");
      try (Hold hold = new Hold(db.storage(), CommitStage.LOG_APPENDED, c -> "c1".equals(c.tag()))) {
        CompletionStage<List<WriteOutcome<Integer>>> held = Source.single(logged(1)).via(CommitFlow.ordered(db)).runWith(Sink.seq(), system);
        hold.awaitArrivals(1); // c1 is appended to the log but not written
        commit(db, 2, 3); // c2 lands after c1 in the log and finishes; the watermark stays at c1
        List<String> current = await(ChangeFeed.current(db, LOG, ReadRequest.fromStart()).map(ChangeFeedTest::entry)
            .runWith(Sink.seq(), system));
        assertEquals(List.of("e0"), current, "neither the held record nor the one behind it is visible");
        released.set(true);
        hold.release();
        await(held);
      }
      assertEquals("e1", probe.receiveMessage());
      assertEquals("e2", probe.receiveMessage());
    }
  }

  @Test
  void aFeedResumesFromAPositionAfterTheDatabaseIsClosedAndReopened() throws Exception {
    Optional<Long> resumeAt;
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      commit(db, 0, 10);
      List<LogRecord> all = await(ChangeFeed.current(db, LOG, ReadRequest.fromStart()).runWith(Sink.seq(), system));
      List<LogRecord> firstFour = await(ChangeFeed.live(db, LOG, ReadRequest.fromStart()).take(4).runWith(Sink.seq(), system));
      assertEquals(all.subList(0, 4).stream().map(LogRecord::position).toList(), firstFour.stream().map(LogRecord::position).toList());
      resumeAt = Optional.of(firstFour.get(3).position());
    }
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      List<String> seen = new ArrayList<>();
      CompletionStage<List<LogRecord>> rest = ChangeFeed.live(db, LOG, ReadRequest.fromPosition(resumeAt.get()).exclusive())
          .take(11).runWith(Sink.seq(), system);
      commit(db, 10, 15);
      for (LogRecord r : await(rest)) {
        seen.add(entry(r));
      }
      List<String> expected = new ArrayList<>();
      List<LogRecord> all = await(ChangeFeed.current(db, LOG, ReadRequest.fromStart()).runWith(Sink.seq(), system));
      assertEquals(15, all.size());
      all.subList(4, 15).forEach(r -> expected.add(entry(r)));
      assertEquals(expected, seen, "exactly the records after the saved position, in log order");
    }
  }

  @Test
  void aFeedCanStartFromATimestampOrTheLastFlushedPosition() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1))) {
      commit(db, 0, 10);
      List<LogRecord> all = await(ChangeFeed.current(db, LOG, ReadRequest.fromStart()).runWith(Sink.seq(), system));
      List<LogRecord> fromSixth = await(ChangeFeed.current(db, LOG, ReadRequest.fromTimestamp(all.get(5).timestamp()))
          .runWith(Sink.seq(), system));
      assertEquals(all.subList(5, 10).stream().map(LogRecord::position).toList(), fromSixth.stream().map(LogRecord::position).toList());

      db.storage().flush();
      long flushed = db.transactionLog(LOG).flushedPosition();
      commit(db, 10, 13);
      List<LogRecord> unflushed = await(ChangeFeed.current(db, LOG, ReadRequest.fromLastFlushed()).runWith(Sink.seq(), system));
      assertTrue(unflushed.size() >= 3, "at least the records committed after the flush");
      assertTrue(unflushed.stream().allMatch(r -> r.position() >= flushed));
      assertEquals(List.of("e10", "e11", "e12"), unflushed.subList(unflushed.size() - 3, unflushed.size()).stream()
          .map(ChangeFeedTest::entry).toList());
    }
  }

  @Test
  void blockingLogReadsStayOffTheStagesThatFollowTheFeed() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1))) {
      commit(db, 0, 3);
      List<String> threads = await(ChangeFeed.current(db, LOG, ReadRequest.fromStart())
          .map(r -> Thread.currentThread().getName()).runWith(Sink.seq(), system));
      assertEquals(3, threads.size());
      for (String t : threads) {
        // The feed reads on the blocking-I/O dispatcher behind its own async boundary; the user's stages do not.
        assertTrue(t.contains("default-dispatcher") && !t.contains("blocking-io"), t);
      }
    }
  }

  @Test
  void aCorruptFrameFailsTheFeedWithATypedErrorThatSaysWhereToResume() throws Exception {
    long[] positions;
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1))) {
      positions = commit(db, 0, 5);
    }
    java.util.Arrays.sort(positions);
    long bad = positions[2];
    Path segment = dir.resolve("txlog").resolve(LOG).resolve(String.format("%020d.txlog", LogPosition.segment(bad)));
    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      long at = LogPosition.offset(bad) + 28 + 2; // inside the payload: its checksum no longer matches
      ch.read(one, at);
      one.put(0, (byte) (one.get(0) ^ 0xFF)).rewind();
      ch.write(one, at);
    }
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1))) {
      List<Long> before = new ArrayList<>();
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(ChangeFeed.current(db, LOG, ReadRequest.fromStart())
          .runForeach(r -> before.add(r.position()), system)));
      CorruptLogFrameException corrupt = assertInstanceOf(CorruptLogFrameException.class, e.getCause());
      assertEquals(bad, corrupt.position());
      assertEquals(List.of(positions[0], positions[1]), before);
      List<LogRecord> after = await(ChangeFeed.current(db, LOG, ReadRequest.fromPosition(corrupt.resumePosition()))
          .runWith(Sink.seq(), system));
      assertEquals(List.of(positions[3], positions[4]), after.stream().map(LogRecord::position).toList());
    }
  }

  @Test
  void aSlowConsumerNeverHoldsUpCommits() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      db.createTransactionLog(LOG); // the consumer starts before the first commit would create the log
      SinkQueueWithCancel<LogRecord> consumer = ChangeFeed.live(db, LOG, ReadRequest.fromStart())
          .toMat(Sink.queue(), Keep.right()).run(system);
      commit(db, 0, 2_000); // completes while nobody pulls: the log buffers, not the feed
      List<String> seen = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        seen.add(entry(await(consumer.pull()).orElseThrow()));
      }
      assertEquals(IntStream.range(0, 2_000).mapToObj(i -> "e" + i).sorted().toList(), seen.stream().sorted().toList());
      consumer.cancel();
    }
  }

  @Test
  void aLiveFeedFailsWithATypedErrorWhenTheDatabaseCloses() throws Exception {
    CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1));
    commit(db, 0, 1);
    TestProbe<String> probe = testKit.createTestProbe();
    CompletionStage<Done> feed = ChangeFeed.live(db, LOG, ReadRequest.fromStart()).runForeach(r -> probe.ref().tell(entry(r)), system);
    assertEquals("e0", probe.receiveMessage());
    db.close();
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(feed));
    assertInstanceOf(TransactionLogException.class, e.getCause());
  }
}
