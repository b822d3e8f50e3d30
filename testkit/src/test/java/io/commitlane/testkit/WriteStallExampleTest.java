package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.CommitResult;
import io.commitlane.testkit.pekko.CommitlaneTest;
import io.commitlane.testkit.pekko.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The write-stall example of docs/testkit.md, run here; TestkitDocsTest checks that the page shows this code. */
// docs: write-stall
@CommitlaneTest(config = "commitlane { commit-queue-capacity = 8, rocksdb { write-buffer-size = 64 KiB, max-write-buffers = 2 } }")
@ExtendWith(LogCapturingExtension.class)
class WriteStallExampleTest {
  private static CompletableFuture<CommitResult> commit(CommitlaneDatabase db, int i) {
    byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
    return db.commit(db.begin().put(key, new byte[4096])).toCompletableFuture();
  }

  @Test
  void aStallIsBackpressureAndEveryAdmittedCommitCompletesAfterIt(TestDatabase test) throws Exception {
    CommitlaneDatabase db = test.database();
    List<CompletableFuture<CommitResult>> commits = new ArrayList<>();
    try (WriteStall stall = WriteStall.force(db.storage())) {   // flushes paused: small memtables fill after a few writes
      for (int i = 0; !stall.writesStopped(); i++) {
        commits.add(commit(db, i));                           // asynchronous: a stopped write waits on its executor
      }
      stall.awaitBlockedWriters(name -> name.startsWith("commitlane-commit-"), 1, Duration.ofSeconds(30));
      assertTrue(db.stats().rocksDb().writeStopped());         // what stats, GetStats and the meters say now
    }                                                         // the stall ends: RocksDB flushes, writes go on
    for (CompletableFuture<CommitResult> c : commits) {
      try {
        c.get(30, TimeUnit.SECONDS);                           // every admitted commit completes
      } catch (ExecutionException refused) {                   // or was refused at once: the queue was full
        assertInstanceOf(CommitQueueFullException.class, refused.getCause());
      }
    }
  }
}
// end docs: write-stall
