package io.commitlane.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Transaction;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommitlaneMetricsTest {
  private static ActorTestKit testKit;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void countersGaugesTimersAndLogMetersFollowTheDatabase() throws Exception {
    Path path = dir.resolve("orders");
    try (CommitlaneDatabase db = CommitlaneDatabase.open(testKit.system(), path)) {
      MeterRegistry registry = new SimpleMeterRegistry();
      new CommitlaneMetrics(db, "orders", Duration.ZERO).bindTo(registry);
      for (int i = 0; i < 5; i++) {
        Transaction t = db.begin().useLog("audit").put(b("k" + i), b("v"));
        t.addLogEntry(b("e" + i));
        db.commit(t).toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      // A read-modify-write overtaken by another write of the key conflicts.
      Transaction stale = db.begin();
      stale.get(b("k0"));
      stale.put(b("k0"), b("stale"));
      db.commit(db.begin().put(b("k0"), b("newer"))).toCompletableFuture().get(10, TimeUnit.SECONDS);
      CompletionException e = assertThrows(CompletionException.class, () -> db.commit(stale).toCompletableFuture().join());
      assertTrue(e.getCause() instanceof ConflictException, e.toString());

      assertEquals(6, registry.get("commitlane.commits").tags("db", "orders", "outcome", "committed").functionCounter().count());
      assertEquals(1, registry.get("commitlane.commits").tags("outcome", "conflicted").functionCounter().count());
      assertEquals(0, registry.get("commitlane.commits").tags("outcome", "overloaded").functionCounter().count());
      assertEquals(7, registry.get("commitlane.commits.admitted").functionCounter().count());
      FunctionTimer wait = registry.get("commitlane.commit.queue.wait").functionTimer();
      assertEquals(7, wait.count());
      assertTrue(wait.totalTime(TimeUnit.NANOSECONDS) > 0);
      FunctionTimer execution = registry.get("commitlane.commit.execution").functionTimer();
      assertEquals(7, execution.count(), "timer counts accumulate across snapshots");
      assertEquals(0, registry.get("commitlane.queue.depth").gauge().value());
      assertTrue(registry.get("commitlane.executors").tags("state", "started").gauge().value() >= 1);
      assertEquals(5, registry.get("commitlane.txlog.records").tags("log", "audit").functionCounter().count(),
          "a log created after binding gets its meters");
      assertEquals(1, registry.get("commitlane.txlog.segments").tags("log", "audit").gauge().value());
      assertTrue(registry.get("commitlane.validation.bytes").gauge().value() > 0);
      assertTrue(registry.get("commitlane.commit.execution.percentile").tags("phi", "0.99").timeGauge()
          .value(TimeUnit.NANOSECONDS) >= 0);
    }
  }

  @Test
  void oneBinderBindsOnce() throws Exception {
    try (CommitlaneDatabase db = CommitlaneDatabase.open(testKit.system(), dir.resolve("db"))) {
      CommitlaneMetrics metrics = new CommitlaneMetrics(db);
      metrics.bindTo(new SimpleMeterRegistry());
      assertThrows(IllegalStateException.class, () -> metrics.bindTo(new SimpleMeterRegistry()));
    }
  }
}
