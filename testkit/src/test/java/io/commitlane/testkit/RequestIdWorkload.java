package io.commitlane.testkit;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.RequestId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Writes through the database's protocol, each with request id {@code req-<n>}: {@code key-<n> =
 * first-<n>} and a log entry, 8 in flight, a RocksDB flush every 300 writes; reports {@code n} when
 * its write is committed. Args: {@code wal=on|off} (default off), {@code append=serialized|leaderless|actor}.
 */
public final class RequestIdWorkload implements CrashWorkload {
  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    Map<String, String> opts = CrashWorkload.options(args);
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "request-id-crash-workload");
    CommitlaneDatabase db = Commitlane.get(system).open(dir, settings(system, opts.getOrDefault("wal", "off"),
        opts.getOrDefault("append", "serialized")));
    Semaphore inFlight = new Semaphore(8);
    Behavior<WriteReply> acks = Behaviors.receiveMessage(reply -> {
      if (reply instanceof Committed c) {
        reporter.acknowledged(Long.toString(c.correlation()));
      }
      inFlight.release();
      return Behaviors.same();
    });
    ActorRef<WriteReply> replies = system.systemActorOf(acks, "acks", org.apache.pekko.actor.typed.Props.empty());
    for (long n = 1; ; n++) {
      inFlight.acquire();
      db.ref().tell(new Write(List.of(Mutation.put(bytes("key-" + n), bytes("first-" + n))), LogEntries.of("main", bytes("first-" + n)),
          RequestId.of("req-" + n), n, replies));
      if (n % 300 == 0) {
        db.storage().flush();
      }
    }
  }

  static PipelineSettings settings(ActorSystem<?> system, String wal, String append) {
    Map<String, Object> m = Map.of("wal", wal, "commit-threads", 2, "txlog.replay", "on", "txlog.append", append);
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane").withFallback(system.settings().config()));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
