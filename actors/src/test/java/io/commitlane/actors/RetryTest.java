package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.ConflictCause;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.stream.Backoff;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Retrying conflicted writes without blocking: from the Java API and over the protocol. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class RetryTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private CommitlaneDatabase open() {
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), Map.of("wal", "off", "write-groups.enabled", "off")));
  }

  @Test
  void transactAsyncRetriesAfterTheBackoffAndReportsTheAttempts() throws Exception {
    try (CommitlaneDatabase db = open()) {
      db.storage().put(b("n"), b("0"));
      AtomicInteger attempts = new AtomicInteger();
      Retry retry = Retry.onConflict(3, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(2)));
      int result = await(db.transactAsync(retry, t -> {
        int n = Integer.parseInt(s(t.get(b("n"))));
        if (attempts.incrementAndGet() == 1) {
          db.storage().put(b("n"), b("10")); // a concurrent change after the read: this attempt conflicts
        }
        t.put(b("n"), b(Integer.toString(n + 1)));
        return n + 1;
      }));
      assertEquals(11, result);
      assertEquals(2, attempts.get());
      assertEquals(1, db.stats().retries());

      ExecutionException e = assertThrows(ExecutionException.class, () -> await(db.transactAsync(retry, t -> {
        t.get(b("n"));
        db.storage().put(b("n"), b("0")); // every attempt conflicts
        return t.put(b("n"), b("1"));
      })));
      assertEquals(3, assertInstanceOf(ConflictException.class, e.getCause()).attempts());
    }
  }

  /** A compare-and-set loop over the protocol: each attempt expects what the previous conflict found. */
  @Test
  void aWriteIsSentAgainWithWhatTheConflictFound() throws Exception {
    try (CommitlaneDatabase db = open()) {
      db.storage().put(b("counter"), b("5"));
      List<Integer> sent = new CopyOnWriteArrayList<>();
      WriteReply reply = await(Retry.onConflict(4, Backoff.none()).write(testKit.system(), db.ref(), TIMEOUT, (attempt, previous, replyTo) -> {
        sent.add(attempt);
        byte[] seen = previous == null ? b("0") : previous.actual().get(0).value(); // the first guess is stale
        long next = Long.parseLong(s(seen)) + 1;
        return new ConditionalWrite(List.of(Expectation.value(b("counter"), seen)), List.of(Mutation.put(b("counter"), b(Long.toString(next)))),
            null, attempt, replyTo);
      }));
      assertInstanceOf(Committed.class, reply);
      assertEquals(2, reply.correlation());
      assertEquals(List.of(1, 2), sent);
      assertEquals("6", s(db.storage().get(b("counter"))));
    }
  }

  @Test
  void aValidationConflictIsSentAgainAfterTheBackoff() throws Exception {
    try (CommitlaneDatabase db = open()) {
      db.storage().put(b("k"), b("v1"));
      ConditionalWrite write = new ConditionalWrite(List.of(Expectation.value(b("k"), b("v1"))), List.of(Mutation.put(b("k"), b("v2"))),
          null, 1, testKit.<WriteReply>createTestProbe().ref());
      List<ConflictCause> causes = new CopyOnWriteArrayList<>();
      java.util.concurrent.CompletionStage<WriteReply> done;
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(CommitStage.DEQUEUED, c -> true);
        done = Retry.onConflict(3, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(5))).write(testKit.system(), db.ref(), TIMEOUT,
            (attempt, previous, replyTo) -> {
              if (previous != null) {
                causes.add(previous.cause());
              }
              return new ConditionalWrite(write.expected(), write.mutations(), null, attempt, replyTo);
            });
        hold.awaitArrivals(1, Duration.ofSeconds(30)); // the first attempt read v1 and waits before its validation
        db.storage().put(b("k"), b("v1")); // the same value, written again after that read
        hold.release();
      }
      assertInstanceOf(Committed.class, await(done));
      assertEquals(List.of(ConflictCause.VALIDATION), causes);
      assertEquals("v2", s(db.storage().get(b("k"))));
    }
  }

  @Test
  void theLastConflictIsTheOutcomeOnceTheAttemptsAreSpentOrTheBuilderStops() throws Exception {
    try (CommitlaneDatabase db = open()) {
      db.storage().put(b("k"), b("now"));
      Retry retry = Retry.onConflict(3, Backoff.none());
      AtomicInteger built = new AtomicInteger();
      WriteReply spent = await(retry.write(testKit.system(), db.ref(), TIMEOUT, (attempt, previous, replyTo) -> {
        built.incrementAndGet();
        return new ConditionalWrite(List.of(Expectation.value(b("k"), b("never"))), List.of(Mutation.remove(b("k"))), null, attempt, replyTo);
      }));
      assertEquals(3, built.get());
      assertEquals(3, spent.correlation());
      assertEquals(ConflictCause.EXPECTATIONS, assertInstanceOf(Conflicted.class, spent).cause());
      assertEquals(3, ((Conflicted) spent).attempts(), "the last conflict counts the loop's attempts, not only its own");

      WriteReply stopped = await(retry.write(testKit.system(), db.ref(), TIMEOUT, (attempt, previous, replyTo) -> previous != null ? null
          : new ConditionalWrite(List.of(Expectation.absent(b("k"))), List.of(Mutation.remove(b("k"))), null, 7, replyTo)));
      assertEquals(7, assertInstanceOf(Conflicted.class, stopped).correlation());
      assertEquals("now", s(db.storage().get(b("k"))));
      assertNull(db.storage().get(b("never")));
    }
    assertThrows(InvalidSettingsException.class, () -> Retry.onConflict(0, Backoff.none()));
  }
}
