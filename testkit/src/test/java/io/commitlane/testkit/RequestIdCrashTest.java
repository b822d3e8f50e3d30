package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.testkit.pekko.CommitlaneTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * kill -9 of a process writing with request ids: after reopening, every id whose write survived
 * (every acknowledged one, and whichever in-flight ones made it) is still recorded, so sending it
 * again applies nothing; an id whose write did not survive left no record, so it is applied now.
 * With the WAL off the records come back through log replay, with the data they were written with.
 */
@CommitlaneTest
@ExtendWith(LogCapturingExtension.class)
class RequestIdCrashTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  @ParameterizedTest(name = "wal {0}, {1} appends")
  @CsvSource({"off, serialized", "off, actor", "off, leaderless", "on, serialized"})
  void aRepeatAfterACrashAppliesNothingTheCrashKept(String wal, String append) throws Exception {
    CrashRun run = CrashHarness.of(RequestIdWorkload.class, dir).args("wal=" + wal, "append=" + append).killAfterAcks(700).run();
    assertTrue(run.killed(), run.stderr());
    Set<Long> acknowledged = new HashSet<>(run.acknowledgedNumbers());
    long sent = acknowledged.stream().mapToLong(Long::longValue).max().orElseThrow() + 8; // 8 in flight at most
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir,
        RequestIdWorkload.settings(testKit.system(), wal.trim(), append.trim()))) {
      TestProbe<WriteReply> replies = testKit.createTestProbe();
      int kept = 0;
      for (long n = 1; n <= sent; n++) {
        byte[] key = RequestIdWorkload.bytes("key-" + n);
        String before = text(db.storage().get(key));
        db.ref().tell(new Write(java.util.List.of(Mutation.put(key, RequestIdWorkload.bytes("again-" + n))),
            LogEntries.of("main", RequestIdWorkload.bytes("again-" + n)), RequestId.of("req-" + n), n, replies.ref()));
        Committed c = replies.expectMessageClass(Committed.class);
        assertEquals(n, c.correlation());
        String after = text(db.storage().get(key));
        if (acknowledged.contains(n)) {
          assertEquals("first-" + n, before, "acknowledged write " + n + " survived");
        }
        if (before != null) {
          assertEquals("first-" + n, before, "write " + n);
          assertEquals(before, after, "write " + n + " survived the crash, so its id did: the repeat applied nothing");
          kept++;
        } else {
          assertEquals("again-" + n, after, "write " + n + " did not survive, nor did its id: the repeat is applied");
        }
      }
      assertTrue(kept >= acknowledged.size(), kept + " kept, " + acknowledged.size() + " acknowledged");
    }
  }

  private static String text(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
