package io.commitlane.bench.cluster;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.bench.cli.Checks;
import io.commitlane.cluster.DatabaseSharding;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One node of a commitlane cluster, for trying several on one machine (see docs/cluster.md): it
 * joins the seed nodes, registers the sharded databases (hosting some, or client-only), then
 * commits an order a second to database {@code shop} (wherever it is owned), each with a request
 * id it sends again until the order is committed, and, with {@code --feed}, prints the change
 * feed of the shop's {@code orders} log, read from whichever node owns it.
 */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = "Run one cluster node on 127.0.0.1: commit an order a second to database 'shop' (retried with its request id until"
        + " committed); --feed prints its change feed.")
final class ClusterNode implements Callable<Integer> {
  @Option(names = "--port", required = true, description = "This node's port (e.g. 2551, 2552, 2553)")
  int port;

  @Option(names = "--seeds", split = ",", defaultValue = "2551",
      description = "Seed nodes' ports on 127.0.0.1 (list; the first must be up to form the cluster). Default: ${DEFAULT-VALUE}")
  List<Integer> seeds;

  @Option(names = "--data-dir", description = "Where databases live: the same directory for every node on this machine"
      + " (required unless --client-only)")
  Path dataDir;

  @Option(names = "--role", description = "Host databases only on nodes with this cluster role (commitlane.cluster.role): give the same"
      + " on every node; without --client-only this node has the role")
  String role;

  @Option(names = "--client-only", description = "Host no databases (needs --role): only send requests")
  boolean clientOnly;

  @Option(names = "--feed", description = "Print the change feed of database 'shop', log 'orders'")
  boolean feed;

  @Option(names = "--seconds", defaultValue = "0", description = "Leave the cluster after this long (0: run until Ctrl-C). Default: ${DEFAULT-VALUE}")
  double seconds;

  @Override
  public Integer call() throws Exception {
    Checks.range("--port", port, 1, 65535);
    seeds.forEach(p -> Checks.range("--seeds", p, 1, 65535));
    Checks.nonNegative("--seconds", seconds);
    if (clientOnly && role == null) {
      throw Checks.usage("--client-only needs --role: the role of the nodes that host databases");
    }
    if (!clientOnly && dataDir == null) {
      throw Checks.usage("--data-dir is required on a node that hosts databases (or give --client-only)");
    }
    ClusterHost.logClusterLines();
    List<String> seedAddresses = seeds.stream().map(p -> "pekko://commitlane@127.0.0.1:" + p).toList();
    StringBuilder roles = new StringBuilder();
    if (role != null) {
      roles.append("commitlane.cluster.role = \"").append(role).append("\"\n");
      if (!clientOnly) {
        roles.append("pekko.cluster.roles = [\"").append(role).append("\"]\n");
      }
    }
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "commitlane", ConfigFactory.parseString(roles.toString())
        .withFallback(LoopbackCluster.nodeConfig(port, seedAddresses, clientOnly ? null : dataDir)));
    String self = Cluster.get(system).selfMember().address().toString();
    System.out.println("node " + self + " joining " + seedAddresses + (clientOnly ? "; client-only" : "; databases under "
        + dataDir.toAbsolutePath()));
    DatabaseSharding databases = DatabaseSharding.init(system);
    if (feed) {
      follow(system, databases, -1);
    }
    long end = seconds > 0 ? System.nanoTime() + (long) (seconds * 1e9) : Long.MAX_VALUE;
    for (int i = 1; System.nanoTime() < end && !system.whenTerminated().isCompleted(); i++) {
      String order = "order-" + port + "-" + i;
      RequestId id = RequestId.of(order); // the same id on every attempt: applied once however often it is sent
      DatabaseProtocol.WriteReply reply;
      do {
        reply = databases.write("shop", List.of(Mutation.put(utf8(order), utf8("placed"))),
            LogEntries.of("orders", utf8(order + " placed on " + port)), id).toCompletableFuture().get(60, TimeUnit.SECONDS);
        if (reply instanceof DatabaseProtocol.WriteRefused r && r.refusal() instanceof DatabaseProtocol.Unavailable u) {
          System.out.println(order + ": " + u.reason() + ", sending it again with request id " + id);
          Thread.sleep(u.outcomeKnown() ? 200 : 0); // a client's pause before it tries again
        }
      } while (reply instanceof DatabaseProtocol.WriteRefused r && r.refusal() instanceof DatabaseProtocol.Unavailable
          && !system.whenTerminated().isCompleted());
      String owner = databases.stats("shop").toCompletableFuture().get(60, TimeUnit.SECONDS) instanceof DatabaseStats st
          ? st.owner() + " epoch " + st.ownerEpoch() : "?";
      System.out.println(order + ": " + reply + " (owner " + owner + ")");
      Thread.sleep(1000); // one order a second, to watch
    }
    system.terminate(); // coordinated shutdown: hands its databases off, then leaves
    system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    return 0;
  }

  /** Print the shop's feed from after {@code after}; when it ends (the shop moved or closed), open it again from the last record. */
  private void follow(ActorSystem<Void> system, DatabaseSharding databases, long after) {
    AtomicLong last = new AtomicLong(after);
    databases.changeFeed("shop", "orders", after).thenAccept(reply -> {
      if (reply instanceof DatabaseProtocol.FeedOpened opened) {
        opened.feed().getSource().runForeach(r -> {
          System.out.println("  feed @" + r.position() + ": " + new String(r.entries().get(0), StandardCharsets.UTF_8));
          last.set(r.position());
        }, system).whenCompleteAsync((done, err) -> reopen(system, databases, last.get(), String.valueOf(err)), system.executionContext());
      } else {
        reopen(system, databases, last.get(), reply.toString());
      }
    });
  }

  private void reopen(ActorSystem<Void> system, DatabaseSharding databases, long after, String why) {
    if (CoordinatedShutdown.get(system).getShutdownReason().isEmpty()) { // not while this node shuts down
      System.out.println("  feed ended (" + why + "); opening it again after position " + after);
      system.scheduler().scheduleOnce(java.time.Duration.ofSeconds(1), () -> follow(system, databases, after), system.executionContext());
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
