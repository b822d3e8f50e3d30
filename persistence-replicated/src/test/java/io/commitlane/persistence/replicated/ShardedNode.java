package io.commitlane.persistence.replicated;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.persistence.internal.journal.EventJournal;
import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.plugin.PluginSettings;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.plugin.PluginStores;
import io.commitlane.persistence.javadsl.CommitlaneReadJournal;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.Tagged;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.query.Sequence;
import org.apache.pekko.persistence.state.DurableStateStoreRegistry;
import org.apache.pekko.persistence.state.javadsl.DurableStateUpdateStore;
import org.apache.pekko.stream.javadsl.Sink;
import scala.jdk.javaapi.CollectionConverters;

/**
 * One node of the sharded process tests in a JVM of its own: a Pekko cluster node on loopback configured by
 * {@code three-node-cluster.conf} (the docs' example, its addresses replaced by the test's ports), hosting a voter
 * replica of the plugins' database, the {@link ShardedRecorder} entities and the {@link ShardedCounter}s. Arguments:
 * its index (0..2), its replica directory, the three Pekko ports and the three replica ports (comma separated), and
 * {@code first} (the cluster's first start) or {@code rejoin} (a restart, joining the others).
 *
 * <p>Commands, one a line on standard input:
 * <ul>
 *   <li>{@code LOAD n m}: keep one {@code Record} in flight to each of the entities {@code e0..e(n-1)} and one
 *       {@code Add} to each of the counters {@code d0..d(m-1)}, wherever sharding runs them;
 *   <li>{@code HALT}: stop the load ({@code HALTED} once nothing is in flight);
 *   <li>{@code STATE id}, {@code COUNT id}: what the entity's or counter's running incarnation holds, asked through
 *       sharding;
 *   <li>{@code JOURNAL id}: the entity's events in this node's replica after a read barrier; {@code STORED id}: the
 *       counter's revision and count in this node's durable-state store (read after a barrier);
 *   <li>{@code TAGS file}: this node's current {@code eventsByTag} after a read barrier, written to {@code file};
 *   <li>{@code LATE id}: the next write of the incarnation this node ran, straight through this node's journal (an
 *       event) or durable-state store (a counter's upsert).
 * </ul>
 * Reports go to standard output as lines {@code @WORDS$} (the {@code $} tells a whole line from one cut by a kill):
 * {@code READY}, {@code ACK id seq event} (printed after the reply, so after the persist handler ran),
 * {@code ADDED id count} (likewise, once the counter stored it), {@code HOST pid seq} (recovered here),
 * {@code HALTED}, {@code STATE id events}, {@code COUNT id count}, {@code JOURNAL id seq:writer:event,...},
 * {@code STORED id revision count}, {@code TAGS count}, {@code LATE-REFUSED id exception} or
 * {@code LATE-STORED id seq}, {@code REMOVED node previousStatus} (a member left the cluster as this node saw it:
 * {@code Exiting} after a graceful leave, {@code Down} after downing) and {@code TERMINATED} (the actor system ended;
 * after SIGTERM the JVM may end first). Closing standard input or SIGTERM ends the node through coordinated shutdown.
 */
public final class ShardedNode {
  static final String SYSTEM = "shop";
  /** How long a driver's command waits for its entity; a command to a node that died times out and the next goes. */
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(3);

  private final int index;
  private final ActorSystem<Void> system;
  private final PluginStore store;
  private final ClusterSharding sharding;
  /** Prints and drives the load: one thread, never a Pekko dispatcher. */
  private final ExecutorService out = Executors.newSingleThreadExecutor();
  private final AtomicLong counter = new AtomicLong();
  private final String incarnation = Long.toString(ProcessHandle.current().pid());
  /** The highest sequence number each entity's incarnation on this node recovered or persisted. */
  private final Map<String, Long> lastSeq = new ConcurrentHashMap<>();
  private boolean halted = true;
  private int running;

  private ShardedNode(int index, List<Integer> pekkoPorts, Config config) {
    this.index = index;
    this.system = ActorSystem.create(Behaviors.empty(), SYSTEM, config);
    system.getWhenTerminated().thenRun(() -> {
      report("TERMINATED");
      Runtime.getRuntime().halt(0);
    });
    ActorRef<ClusterEvent.MemberRemoved> removals = system.systemActorOf(Behaviors.receive(ClusterEvent.MemberRemoved.class)
        .onMessage(ClusterEvent.MemberRemoved.class, removed -> {
          int port = (Integer) removed.member().address().port().get();
          report("REMOVED n" + (pekkoPorts.indexOf(port) + 1) + " " + removed.previousStatus());
          return Behaviors.same();
        }).build(), "removals", Props.empty());
    Cluster.get(system).subscriptions().tell(Subscribe.create(removals, ClusterEvent.MemberRemoved.class));
    this.store = ReplicatedNodes.await(PluginStores.get(system)
        .acquire(PluginSettings.read(system.settings().config(), ReplicatedNodes.JOURNAL))).store();
    this.sharding = ClusterSharding.get(system);
    sharding.init(Entity.of(ShardedRecorder.TYPE, ctx -> ShardedRecorder.create(ctx.getEntityId(),
        recovered -> out.execute(() -> report("HOST " + recovered)), seq -> lastSeq.put(ctx.getEntityId(), seq))));
    sharding.init(Entity.of(ShardedCounter.TYPE, ctx -> ShardedCounter.create(ctx.getEntityId(),
        recovered -> out.execute(() -> report("HOST " + recovered)), count -> lastSeq.put(ctx.getEntityId(), count))));
  }

  public static void main(String[] args) throws Exception {
    int index = Integer.parseInt(args[0]);
    boolean rejoin = args.length > 4 && args[4].equals("rejoin");
    ShardedNode node = new ShardedNode(index, ports(args[2]),
        config(index, Path.of(args[1]), ports(args[2]), ports(args[3]), rejoin));
    node.awaitMembersUp(3);
    node.report("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      node.command(line.trim().split(" "));
    }
    node.system.terminate();
    node.system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /**
   * The example configuration with this test's loopback addresses, then the test's short failure detection. A node
   * that {@code rejoin}s has only the other nodes as seeds: the first seed of the list, restarted, would form a
   * cluster of its own if the others did not answer within {@code seed-node-timeout}.
   */
  static Config config(int index, Path directory, List<Integer> pekkoPorts, List<Integer> replicaPorts, boolean rejoin) {
    String example = example();
    for (int i = 0; i < 3; i++) {
      example = example.replace("10.0.0." + (i + 1) + ":2551", "127.0.0.1:" + pekkoPorts.get(i))
          .replace("10.0.0." + (i + 1) + ":7001", "127.0.0.1:" + replicaPorts.get(i));
    }
    String thisNode = """
        pekko.remote.artery.canonical.hostname = "127.0.0.1"
        pekko.remote.artery.canonical.port = %d
        commitlane-persistence.replicated.node = n%d
        commitlane-persistence.replicated.directory = "%s"
        """.formatted(pekkoPorts.get(index), index + 1, directory.toString().replace("\\", "/"));
    if (rejoin) {
      List<String> others = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        if (i != index) {
          others.add("\"pekko://" + SYSTEM + "@127.0.0.1:" + pekkoPorts.get(i) + "\"");
        }
      }
      thisNode += "pekko.cluster.seed-nodes = [" + String.join(", ", others) + "]\n";
    }
    String test = """
        # A node that stops answering for 1.5 s is unreachable; the majority downs it 1 s later.
        pekko.cluster.failure-detector.heartbeat-interval = 300 ms
        pekko.cluster.failure-detector.acceptable-heartbeat-pause = 1500 ms
        pekko.cluster.split-brain-resolver.stable-after = 1 s
        pekko.cluster.gossip-interval = 300 ms
        pekko.cluster.leader-actions-interval = 300 ms
        pekko.cluster.retry-unsuccessful-join-after = 2 s
        pekko.cluster.sharding.number-of-shards = 30
        pekko.cluster.sharding.rebalance-interval = 2 s
        # A rebalance under way when its node is killed holds the shard's requests until it ends; sharding's
        # default lets it run 60 s, as long as the test waits for an entity to move.
        pekko.cluster.sharding.handoff-timeout = 10 s
        pekko.cluster.sharding.retry-interval = 500 ms
        pekko.cluster.sharding.shard-failure-backoff = 1 s
        pekko.cluster.sharding.entity-restart-backoff = 500 ms
        pekko.cluster.sharding.coordinator-failure-backoff = 1 s
        pekko.cluster.sharding.waiting-for-state-timeout = 1 s
        pekko.cluster.sharding.updating-state-timeout = 2 s
        # A downed node keeps running (its entities too), as a partitioned node's do until it learns it was downed:
        # the frozen node's late writes reach the journal, which must refuse them.
        pekko.cluster.run-coordinated-shutdown-when-down = off
        pekko.actor.allow-java-serialization = on
        pekko.actor.warn-about-java-serializer-usage = off
        pekko.loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
        pekko.logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
        pekko.loglevel = INFO
        commitlane.replication.election-timeout-min = 300 ms
        commitlane.replication.election-timeout-max = 600 ms
        """;
    return ConfigFactory.parseString(thisNode)
        .withFallback(ConfigFactory.parseString(test))
        .withFallback(ConfigFactory.parseString(example))
        .withFallback(ConfigFactory.load())
        .resolve();
  }

  /** The docs' three-node example (persistence.md shows this file). */
  static String example() {
    try (InputStream in = ShardedNode.class.getResourceAsStream("/three-node-cluster.conf")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Integer> ports(String csv) {
    List<Integer> ports = new ArrayList<>();
    for (String p : csv.split(",")) {
      ports.add(Integer.parseInt(p));
    }
    return ports;
  }

  private void awaitMembersUp(int n) throws InterruptedException {
    Cluster cluster = Cluster.get(system);
    while (true) {
      long up = 0;
      for (var m : cluster.state().getMembers()) {
        up += m.status() == MemberStatus.up() ? 1 : 0;
      }
      if (cluster.selfMember().status() == MemberStatus.up() && up >= n) {
        return;
      }
      Thread.sleep(50); // the main thread polls the cluster state (gossip runs on Pekko's own timers)
    }
  }

  private void command(String[] words) {
    switch (words[0]) {
      case "LOAD" -> load(Integer.parseInt(words[1]), Integer.parseInt(words[2]));
      case "HALT" -> out.execute(this::halt);
      case "STATE" -> state(words[1]);
      case "COUNT" -> count(words[1]);
      case "STORED" -> stored(words[1]);
      case "JOURNAL" -> journal(words[1]);
      case "TAGS" -> tags(Path.of(words[1]));
      case "LATE" -> late(words[1]);
      default -> report("UNKNOWN " + String.join(" ", words));
    }
  }

  private void load(int recorders, int counters) {
    out.execute(() -> {
      halted = false;
      running += recorders + counters;
      for (int e = 0; e < recorders; e++) {
        next("e" + e);
      }
      for (int d = 0; d < counters; d++) {
        next("d" + d);
      }
    });
  }

  /** Sends the entity its next event, or ends its load; runs on {@link #out}. */
  private void next(String id) {
    if (halted) {
      if (--running == 0) {
        report("HALTED");
      }
      return;
    }
    String event = "n" + (index + 1) + "." + incarnation + "." + counter.incrementAndGet();
    boolean counts = id.startsWith("d");
    java.util.concurrent.CompletionStage<Long> reply = counts
        ? sharding.entityRefFor(ShardedCounter.TYPE, id).<Long>ask(ShardedCounter.Add::new, ASK_TIMEOUT)
        : sharding.entityRefFor(ShardedRecorder.TYPE, id).<Long>ask(replyTo -> new ShardedRecorder.Record(event, replyTo), ASK_TIMEOUT);
    reply.whenCompleteAsync((seq, failure) -> {
          if (failure == null) {
            report(counts ? "ADDED " + id + " " + seq : "ACK " + id + " " + seq + " " + event);
            next(id);
          } else {
            // Its node died or it is moving: the event may or may not be stored; pace the retry.
            CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS, out).execute(() -> next(id));
          }
        }, out);
  }

  /**
   * Writes the next event of the entity's incarnation on this node straight through this node's journal (sequence
   * number: the highest it recovered or persisted, plus one), as that incarnation's next persist would: on a node that
   * was frozen and downed meanwhile, a write from the incarnation that no longer owns the entity.
   */
  private void late(String id) {
    Long seq = lastSeq.get(id);
    if (seq == null) {
      report("LATE-NONE " + id);
      return;
    }
    if (id.startsWith("d")) {
      // The counter's next upsert: revision and count one above what its incarnation here stored.
      states().upsertObject(ShardedCounter.TYPE.name() + "|" + id, seq + 1, seq + 1, ShardedCounter.TAG)
          .whenCompleteAsync((done, failure) -> report(failure == null ? "LATE-STORED " + id + " " + (seq + 1)
              : "LATE-REFUSED " + id + " " + unwrap(failure).getClass().getSimpleName()), out);
      return;
    }
    String pid = ShardedRecorder.TYPE.name() + "|" + id;
    String event = "late." + incarnation + "." + counter.incrementAndGet();
    PersistentRepr repr = PersistentRepr.apply(new Tagged(event, CollectionConverters.asScala(Set.of(ShardedRecorder.TAG)).toSet()),
        seq + 1, pid, "", false, null, "late-writer-" + incarnation);
    journal().write(List.of(new AtomicWrite(CollectionConverters.asScala(List.of(repr)).toList())))
        .whenCompleteAsync((results, failure) -> {
          Throwable cause = failure == null ? null : unwrap(failure);
          if (cause == null && results.get(0).isPresent()) {
            cause = results.get(0).get();
          }
          report(cause == null ? "LATE-STORED " + id + " " + (seq + 1) : "LATE-REFUSED " + id + " " + cause.getClass().getSimpleName());
        }, out);
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private EventJournal journal() {
    return new EventJournal(store, new PayloadCodec((ExtendedActorSystem) Adapter.toClassic(system)), 100);
  }

  private void halt() {
    halted = true;
    if (running == 0) {
      report("HALTED");
    }
  }

  private void state(String id) {
    sharding.entityRefFor(ShardedRecorder.TYPE, id).<String>ask(ShardedRecorder.Get::new, Duration.ofSeconds(10))
        .whenCompleteAsync((events, failure) -> report(failure == null ? "STATE " + id + " " + events
            : "STATE-FAILED " + id + " " + failure.getClass().getSimpleName()), out);
  }

  private void count(String id) {
    sharding.entityRefFor(ShardedCounter.TYPE, id).<Long>ask(ShardedCounter.Get::new, Duration.ofSeconds(10))
        .whenCompleteAsync((count, failure) -> report(failure == null ? "COUNT " + id + " " + count
            : "COUNT-FAILED " + id + " " + failure.getClass().getSimpleName()), out);
  }

  /** The counter as this node's durable-state store reads it (after a read barrier): revision and count. */
  private void stored(String id) {
    states().getObject(ShardedCounter.TYPE.name() + "|" + id)
        .whenCompleteAsync((read, failure) -> report(failure == null
            ? "STORED " + id + " " + read.revision() + " " + read.value().map(String::valueOf).orElse("none")
            : "STORED-FAILED " + id + " " + failure), out);
  }

  @SuppressWarnings("unchecked")
  private DurableStateUpdateStore<Object> states() {
    return DurableStateStoreRegistry.get(Adapter.toClassic(system))
        .getDurableStateStoreFor(DurableStateUpdateStore.class, "commitlane-persistence.state");
  }

  private void journal(String id) {
    String pid = ShardedRecorder.TYPE.name() + "|" + id;
    EventJournal journal = journal();
    List<String> events = new ArrayList<>();
    store.readBarrier()
        .thenCompose(v -> journal.replay(pid, 1, Long.MAX_VALUE, Long.MAX_VALUE,
            r -> events.add(r.sequenceNr() + ":" + r.writerUuid() + ":" + r.payload())))
        .whenCompleteAsync((v, failure) -> report(failure == null ? "JOURNAL " + id + " " + String.join(",", events)
            : "JOURNAL-FAILED " + id + " " + failure), out);
  }

  private void tags(Path file) {
    CommitlaneReadJournal queries = PersistenceQuery.get(Adapter.toClassic(system))
        .getReadJournalFor(CommitlaneReadJournal.class, CommitlaneReadJournal.IDENTIFIER);
    store.readBarrier()
        .thenCompose(v -> queries.currentEventsByTag(ShardedRecorder.TAG, Offset.noOffset()).runWith(Sink.seq(), system))
        .whenCompleteAsync((envelopes, failure) -> {
          if (failure != null) {
            report("TAGS-FAILED " + failure);
            return;
          }
          StringBuilder text = new StringBuilder();
          envelopes.forEach(e -> text.append(((Sequence) e.offset()).value()).append(' ').append(e.persistenceId())
              .append(' ').append(e.sequenceNr()).append(' ').append(e.event()).append('\n'));
          try {
            Files.writeString(file, text);
          } catch (IOException e) {
            report("TAGS-FAILED " + e);
            return;
          }
          report("TAGS " + envelopes.size());
        }, out);
  }

  private void report(String words) {
    synchronized (System.out) {
      System.out.print("@" + words + "$\n");
      System.out.flush();
    }
  }
}
