package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.put;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.KeyRange;
import io.commitlane.storage.RangeClear;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Compaction and clearing through the Java facade: off the caller's thread, completed on the completion dispatcher. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class StoreMaintenanceTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  @Test
  void clearAndCompactRunOffTheCallersThreadAndKeepOtherStores() throws Exception {
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), Map.of("wal", "off")))) {
      var items = await(db.createStore("items"));
      for (int i = 0; i < 50; i++) {
        await(put(db, "t" + i, "k" + i, "v"));
        db.storage().put(items, b("k" + i), b("v"));
      }
      Thread caller = Thread.currentThread();
      CompletableFuture<String> ranOn = new CompletableFuture<>();
      long removed = await(db.clearAsync(RangeClear.of(KeyRange.all().in(items)))
          .whenComplete((n, e) -> ranOn.complete(Thread.currentThread().getName())));
      assertEquals(50, removed);
      assertNotEquals(caller.getName(), await(ranOn));
      assertTrue(!await(ranOn).startsWith("commitlane-commit-"), "completed on a commit thread: " + await(ranOn));
      assertEquals(0, db.storage().count(KeyRange.all().in(items)));
      assertEquals(50, db.storage().count(KeyRange.all()));
      assertEquals(Done.getInstance(), await(db.compactAsync(KeyRange.all().in(items), true)));
      assertEquals(Done.getInstance(), await(db.compactAsync(KeyRange.prefix(b("k1")), false)));
      assertEquals(11, await(db.clearAsync(RangeClear.of(KeyRange.prefix(b("k1"))))));
      assertNull(db.storage().get(b("k12")));
    }
  }
}
