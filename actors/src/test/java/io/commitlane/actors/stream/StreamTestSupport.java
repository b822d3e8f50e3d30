package io.commitlane.actors.stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.internal.commit.StageListener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.typed.ActorSystem;

/** Helpers shared by the stream tests. */
final class StreamTestSupport {
  private StreamTestSupport() {}

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  static String s(java.nio.ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Open with the WAL off and the given {@code commitlane.*} overrides. */
  static CommitlaneDatabase open(ActorSystem<?> system, Path dir, Map<String, Object> overrides) {
    Map<String, Object> m = new HashMap<>(overrides);
    m.putIfAbsent("wal", "off");
    Config c = ConfigFactory.parseMap(m).atPath(PipelineSettings.ROOT).withFallback(system.settings().config());
    return Commitlane.get(system).open(dir, PipelineSettings.fromConfig(c));
  }

  static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /** Wait for a condition another thread makes true; the timeout is only an upper bound. */
  static void eventually(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
    }
  }

  /** Slows every commit down at a stage by busy-parking for a while: a deliberately slow database. */
  static Database.Registration slowDown(Database db, CommitStage stage, long micros) {
    return db.addStageListener((s, c) -> {
      if (s == stage) {
        long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(micros);
        for (long left; (left = until - System.nanoTime()) > 0; ) {
          LockSupport.parkNanos(left);
        }
      }
    });
  }

  /** Counts commits admitted and not yet completed (the database side of in-flight), with its maximum. */
  static final class InFlight implements StageListener {
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger max = new AtomicInteger();

    @Override
    public void onStage(CommitStage stage, PendingCommit commit) {
      if (stage == CommitStage.ADMITTED) {
        max.accumulateAndGet(now.incrementAndGet(), Math::max);
      } else if (stage == CommitStage.COMPLETED) {
        now.decrementAndGet();
      }
    }
  }
}
