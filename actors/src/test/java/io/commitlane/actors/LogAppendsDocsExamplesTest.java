package io.commitlane.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.testsupport.DocSnippets;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snippets of docs/log-appends.md: they run here, and the page holds them verbatim. */
class LogAppendsDocsExamplesTest {
  private static final Path PAGE = Path.of("..", "docs", "log-appends.md");
  private static final Path SOURCE = Path.of("src", "test", "java", "io", "commitlane", "actors",
      "LogAppendsDocsExamplesTest.java");

  @TempDir
  Path dir;

  @Test
  void theActorWritesTheLogThroughConfigAndDirectly() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "docs-log-appends");
    try {
      // docs: actor-config
      Config config = ConfigFactory.parseString("""
          commitlane.wal = off
          commitlane.txlog { append = actor, durability = fsync }
          """).withFallback(system.settings().config());
      CommitlaneDatabase db = Commitlane.get(system).open(dir.resolve("db"), PipelineSettings.fromConfig(config));
      Transaction txn = db.begin().useLog("orders");
      txn.put("order-1".getBytes(StandardCharsets.UTF_8), "paid".getBytes(StandardCharsets.UTF_8));
      txn.addLogEntry("order-1 paid".getBytes(StandardCharsets.UTF_8));
      CommitResult r = db.commit(txn).toCompletableFuture().get(10, TimeUnit.SECONDS);  // after the writer's fsync
      db.close();
      // end docs
      assertTrue(LogAppend.of(r).isPresent());

      // docs: actor-direct
      LogSettings settings = LogSettings.defaults().withAppendMode(AppendMode.ACTOR).withDurability(Durability.PROCESS);
      try (TransactionLog log = TransactionLog.open(dir.resolve("log"), settings)) {
        long position = log.append(7, System.currentTimeMillis(), List.of(), null);  // claims and queues, no I/O
        // ... the caller's RocksDB write ...
        CompletableFuture<Void> ack = log.finishAsync(position, () -> 0L);  // queued for the writer, no wait
        ack.get(10, TimeUnit.SECONDS);  // the writer wrote the batch holding it and finished it
        assertTrue(log.committedWatermark() > position);
      }
      // end docs
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void thePageHoldsEverySnippetVerbatim() throws IOException {
    String page = Files.readString(PAGE);
    List<String> snippets = DocSnippets.allInSource(Files.readString(SOURCE));
    assertEquals(2, snippets.size());
    for (String s : snippets) {
      assertTrue(page.contains(s), "docs/log-appends.md lacks this snippet of " + SOURCE + ":\n" + s);
    }
  }
}
