package io.commitlane.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Transaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's first example, run as it stands, and checked to be the text the README shows. */
class GettingStartedTest {
  @TempDir Path dir;

  @Test
  void theFirstExampleCommitsAndReadsBack() throws Exception {
    // README: getting-started
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "shop");
    CommitlaneDatabase db = Commitlane.get(system).open(dir.resolve("shop")); // replays its logs, then takes commits
    byte[] key = "order-1".getBytes(UTF_8);

    Transaction txn = db.begin().useLog("orders");              // this commit also appends to the "orders" log
    txn.put(key, "paid".getBytes(UTF_8));
    txn.addLogEntry("order-1 paid".getBytes(UTF_8));
    CompletionStage<CommitResult> done = db.commit(txn);        // returns at once; a commit thread validates and writes

    done.thenAccept(r -> System.out.println("committed, version " + r.version()))  // on Pekko's default dispatcher
        .toCompletableFuture().join();                          // block only in main; actors use pipeToSelf
    String value = new String(db.storage().get(key), UTF_8);    // "paid"
    db.close();                                                 // drains admitted commits first
    system.terminate();
    // end README
    assertEquals("paid", value);
    assertTrue(done.toCompletableFuture().join().version() > 0);
    system.getWhenTerminated().toCompletableFuture().join();
  }

  @Test
  void theReadmeShowsTheCodeThatRunsHere() throws IOException {
    String source = Files.readString(Path.of("src/test/java/io/commitlane/examples/GettingStartedTest.java"));
    String start = "// README: getting-started\n";
    int from = source.indexOf(start) + start.length();
    String block = source.substring(from, source.indexOf("    // end README\n", from));
    StringBuilder expected = new StringBuilder();
    for (String line : block.lines().toList()) {
      expected.append(line.isBlank() ? "" : line.substring(4)).append('\n');
    }
    String readme = Files.readString(Path.of("..", "README.md"));
    int marker = readme.indexOf("<!-- README: getting-started");
    assertTrue(marker >= 0, "the README has no getting-started example");
    int open = readme.indexOf("```java\n", marker) + "```java\n".length();
    assertEquals(expected.toString(), readme.substring(open, readme.indexOf("```\n", open)));
  }
}
