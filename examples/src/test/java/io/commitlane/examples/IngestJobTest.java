package io.commitlane.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.stream.IngestTotals;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IngestJobTest {
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

  @Test
  void everyLineIsCommittedInBatches() throws Exception {
    List<String> lines = new ArrayList<>();
    lines.add("# a comment, skipped");
    for (int i = 0; i < 2_000; i++) {
      lines.add("user-" + i + ", " + (i * 7));
    }
    Path path = dir.resolve("users");
    IngestTotals totals = IngestJob.run(testKit.system(), path, Source.from(lines))
        .toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertEquals(2_000, totals.records());
    assertEquals(0, totals.failedRecords());
    Commitlane.get(testKit.system()).whenReleased(path).toCompletableFuture().get(30, TimeUnit.SECONDS);
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(path)) {
      assertEquals("0", new String(db.storage().get("user-0".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
      assertEquals("13993", new String(db.storage().get("user-1999".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
    }
  }
}
