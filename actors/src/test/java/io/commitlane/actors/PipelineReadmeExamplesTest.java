package io.commitlane.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.storage.Transaction;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/pipeline.md's first snippet, verbatim between the markers. */
class PipelineReadmeExamplesTest {
  @TempDir
  Path dir;

  @Test
  void pipelineQuickStart() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "readme");
    try {
      String count;
      // README: pipeline-quick-start
      CommitlaneDatabase db = Commitlane.get(system).open(dir);   // settings: commitlane { ... } in the config
      Transaction txn = db.begin().useLog("orders");                  // this commit also appends a log record
      txn.put("order-1".getBytes(StandardCharsets.UTF_8), "paid".getBytes(StandardCharsets.UTF_8));
      txn.addLogEntry("order-1 paid".getBytes(StandardCharsets.UTF_8));
      CompletionStage<String> done = db.commit(txn)                 // admitted on this thread, runs on a commit thread
          .thenApply(result -> "logged at " + LogAppend.of(result).orElseThrow());  // runs on the default dispatcher

      done.toCompletableFuture().get(10, TimeUnit.SECONDS);                     // the first commit to "orders" created it
      try (LogReader reader = db.transactionLog("orders").reader(ReadRequest.fromStart())) {
        LogRecord record = reader.next();                             // committed records only, in log order
        count = record.entries().size() + " entry in txn " + record.transactionId();
      }
      db.close();                                                     // drains admitted commits, then refuses new ones
      // end README
      assertEquals("1 entry in txn " + txn.id(), count);
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
