package io.commitlane.bench;

import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
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
 * One node of a commitlane cluster, for trying three on one machine (see the README's Cluster
 * section): it joins the seed node, registers the sharded databases, then commits an order a
 * second to database {@code shop} (wherever it is owned) and, with {@code --feed}, prints the
 * change feed of the shop's {@code orders} log, read from whichever node owns it.
 */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = "Run one cluster node on 127.0.0.1: commit an order a second to database 'shop'; --feed prints its change feed.")
final class ClusterNode implements Callable<Integer> {
  @Option(names = "--port", required = true, description = "This node's port (e.g. 2551, 2552, 2553)")
  int port;

  @Option(names = "--seeds", split = ",", defaultValue = "2551",
      description = "Seed nodes' ports on 127.0.0.1 (list; the first must be up to form the cluster). Default: ${DEFAULT-VALUE}")
  List<Integer> seeds;

  @Option(names = "--data-dir", required = true, description = "Where databases live: the same directory for every node on this machine")
  Path dataDir;

  @Option(names = "--feed", description = "Print the change feed of database 'shop', log 'orders'")
  boolean feed;

  @Option(names = "--seconds", defaultValue = "0", description = "Leave the cluster after this long (0: run until Ctrl-C). Default: ${DEFAULT-VALUE}")
  double seconds;

  @Override
  public Integer call() throws Exception {
    Checks.range("--port", port, 1, 65535);
    seeds.forEach(p -> Checks.range("--seeds", p, 1, 65535));
    Checks.nonNegative("--seconds", seconds);
    List<String> seedAddresses = seeds.stream().map(p -> "pekko://commitlane@127.0.0.1:" + p).toList();
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "commitlane", ClusterBench.nodeConfig(port, seedAddresses, dataDir));
    String self = Cluster.get(system).selfMember().address().toString();
    System.out.println("node " + self + " joining " + seedAddresses + "; databases under " + dataDir.toAbsolutePath());
    DatabaseSharding databases = DatabaseSharding.init(system);
    if (feed) {
      follow(system, databases, -1);
    }
    long end = seconds > 0 ? System.nanoTime() + (long) (seconds * 1e9) : Long.MAX_VALUE;
    for (int i = 1; System.nanoTime() < end && !system.whenTerminated().isCompleted(); i++) {
      String order = "order-" + port + "-" + i;
      DatabaseProtocol.WriteReply reply = databases.write("shop", List.of(Mutation.put(utf8(order), utf8("placed"))),
          LogEntries.of("orders", utf8(order + " placed on " + port))).toCompletableFuture().get(30, TimeUnit.SECONDS);
      String owner = databases.stats("shop").toCompletableFuture().get(30, TimeUnit.SECONDS) instanceof DatabaseStats st
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
