package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.settings;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.commitlane.actors.DatabaseProtocol.Backup;
import io.commitlane.actors.DatabaseProtocol.Checkpoint;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.CreateStore;
import io.commitlane.actors.DatabaseProtocol.DropStore;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.GetStats;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.OpenChangeFeed;
import io.commitlane.actors.DatabaseProtocol.Reply;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.Write;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Exactly one reply per request" over every request type: each permitted {@link Request} is
 * served by its own branch of the handler, not by the fallback that answers a type it does not
 * know. A request type added to the protocol without a case here fails the first assertion.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class RequestDispatchTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  @SuppressWarnings("unchecked")
  private static <T> ActorRef<T> to(ActorRef<Reply> probe) {
    return (ActorRef<T>) (ActorRef<?>) probe;
  }

  @Test
  void everyRequestTypeHasItsOwnBranchAndOneReply() {
    byte[] k = "k".getBytes(UTF_8);
    Map<Class<?>, Function<ActorRef<Reply>, Request>> one = new LinkedHashMap<>();
    one.put(Write.class, r -> new Write(List.of(Mutation.put(k, k)), null, 1, to(r)));
    one.put(ConditionalWrite.class, r -> new ConditionalWrite(List.of(), List.of(Mutation.put(k, k)), null, 2, to(r)));
    one.put(Get.class, r -> new Get(Key.of(k), 3, to(r)));
    one.put(MultiGet.class, r -> new MultiGet(List.of(Key.of(k)), 4, to(r)));
    one.put(Scan.class, r -> new Scan(ScanRange.all(null), 10, 5, to(r)));
    one.put(Count.class, r -> new Count(ScanRange.all(null), false, 6, to(r)));
    one.put(CreateStore.class, r -> new CreateStore("orders", 7, to(r)));
    one.put(DropStore.class, r -> new DropStore("orders", 8, to(r)));
    one.put(GetStats.class, r -> new GetStats(9, to(r)));
    one.put(OpenChangeFeed.class, r -> new OpenChangeFeed("events", -1, 10, to(r)));
    one.put(Backup.class, r -> new Backup(dir.resolve("backups"), 11, to(r)));
    one.put(Checkpoint.class, r -> new Checkpoint(dir.resolve("checkpoint"), 12, to(r)));
    assertEquals(Set.of(Request.class.getPermittedSubclasses()), one.keySet(), "a request type without a case in this test");

    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir.resolve("db"),
        settings(testKit.system(), Map.of("wal", "off")))) {
      for (Map.Entry<Class<?>, Function<ActorRef<Reply>, Request>> e : one.entrySet()) {
        TestProbe<Reply> probe = testKit.createTestProbe(Reply.class);
        Request request = e.getValue().apply(probe.ref());
        db.ref().tell(request);
        Reply reply = probe.receiveMessage(Duration.ofSeconds(30));
        assertEquals(request.correlation(), reply.correlation(), e.getKey().getSimpleName());
        assertFalse(reply instanceof DatabaseProtocol.RefusedReply r && r.message().contains("does not serve"),
            e.getKey().getSimpleName() + " reached the handler's fallback: " + reply);
        probe.expectNoMessage(Duration.ofMillis(50));
      }
    }
  }
}
