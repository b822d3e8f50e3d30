package io.commitlane.bench.cluster;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The failover bench's offline check, with every node stopped: each database is opened here and
 * its {@code orders} log counted for writes applied more than once, its keys for acknowledged
 * writes that are missing.
 */
final class FailoverCheck {
  /** Log entries of a write beyond its first, and acknowledged writes whose key does not hold them. */
  record Result(long duplicates, long lost) {}

  private FailoverCheck() {}

  static Result verify(Path data, List<String> names, FailoverLoad load) throws Exception {
    ActorSystem<Void> local = ActorSystem.create(Behaviors.empty(), "failover-check", ConfigFactory.parseString(
        "pekko.actor.provider = local").withFallback(ConfigFactory.load()));
    long duplicates = 0;
    long lost = 0;
    try {
      for (String db : names) {
        try (CommitlaneDatabase d = Commitlane.get(local).open(data.resolve(db))) {
          Map<String, Integer> applied = new HashMap<>();
          try (LogReader reader = d.transactionLog("orders").reader(ReadRequest.fromStart())) {
            for (LogRecord r; (r = reader.next()) != null; ) {
              for (ByteBuffer e : r.entries()) {
                applied.merge(StandardCharsets.UTF_8.decode(e.duplicate()).toString(), 1, Integer::sum);
              }
            }
          }
          for (int n : applied.values()) {
            duplicates += n - 1;
          }
          for (FailoverLoad.Ack a : load.acks) {
            if (a.write().db().equals(db)) {
              byte[] v = d.storage().get(a.write().key().getBytes(StandardCharsets.UTF_8));
              if (v == null || !Arrays.equals(v, a.write().id().getBytes(StandardCharsets.UTF_8))) {
                lost++;
              }
            }
          }
        }
      }
    } finally {
      local.terminate();
      local.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
    return new Result(duplicates, lost);
  }
}
