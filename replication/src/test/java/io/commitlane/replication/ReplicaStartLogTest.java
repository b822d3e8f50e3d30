package io.commitlane.replication;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What a user's log shows while a replica starts beside a running leader, with the logging
 * replication.md gives: nothing at ERROR. The leader sends entries to a listener it already
 * counts as a member while the listener's replica is still starting; the test holds that start
 * open until the leader's entries arrived, so the window is there on every run.
 */
class ReplicaStartLogTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void aListenerStartingWhileTheLeaderSendsToItLogsNoError() throws Exception {
    // WARN, not replication.md's ERROR: the test watches for the leader's entries arriving.
    RatisLog log = new RatisLog(Level.WARN);
    ListAppender<ILoggingEvent> events = log.events;
    List<ReplicaNode> nodes = new ArrayList<>();
    ExecutorService hosting = Executors.newSingleThreadExecutor();
    try {
      List<ReplicaPeer> voters = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        voters.add(new ReplicaPeer("v" + i, "127.0.0.1", ReplicaCluster.freePort()));
      }
      ReplicaPeer reader = new ReplicaPeer("reader", "127.0.0.1", ReplicaCluster.freePort());
      ReplicationGroup group = new ReplicationGroup("catalog", voters).withListeners(reader);
      ReplicatedDatabase first = null;
      for (ReplicaPeer v : voters) {
        ReplicaNode node = ReplicaNode.start(settings(v));
        nodes.add(node);
        ReplicatedDatabase db = node.host(group);
        first = first == null ? db : first;
      }
      first.begin().put("k".getBytes(UTF_8), "v".getBytes(UTF_8)).commit().toCompletableFuture().get(30, TimeUnit.SECONDS);

      CountDownLatch opening = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ReplicaNode node = ReplicaNode.start(settings(reader), () -> {
        opening.countDown();
        try {
          release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      nodes.add(node);
      int seenBefore = seen(events).size();
      CompletableFuture<ReplicatedDatabase> hosted = CompletableFuture.supplyAsync(() -> node.host(group), hosting);
      opening.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      awaitNotReady(events, seenBefore); // the leader's entries reached the replica while it started
      release.countDown();
      ReplicatedDatabase listener = hosted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      listener.sync().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertEquals("LISTENER", listener.status().role());
    } finally {
      hosting.shutdownNow();
      ReplicaCluster.closeAll(new ArrayList<>(nodes));
      log.close();
    }
    assertEquals(List.of(), log.errors(), "logged at ERROR while a listener started");
  }

  /**
   * With the logging replication.md gives, a listener that is used the moment it is hosted (reads
   * of every consistency, a commit through it, its status), then stopped and started again and
   * used at once again, puts nothing at ERROR in the log.
   */
  @Test
  void aListenerUsedAsSoonAsItIsHostedOrRestartedLogsNoError() throws Exception {
    RatisLog log = new RatisLog(Level.ERROR); // as replication.md gives
    List<ReplicaNode> nodes = new ArrayList<>();
    try {
      List<ReplicaPeer> voters = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        voters.add(new ReplicaPeer("v" + i, "127.0.0.1", ReplicaCluster.freePort()));
      }
      ReplicaPeer reader = new ReplicaPeer("reader", "127.0.0.1", ReplicaCluster.freePort());
      ReplicationGroup group = new ReplicationGroup("orders", voters).withListeners(reader);
      ReplicatedDatabase first = null;
      for (ReplicaPeer v : voters) {
        ReplicaNode node = ReplicaNode.start(settings(v));
        nodes.add(node);
        ReplicatedDatabase db = node.host(group);
        first = first == null ? db : first;
      }
      first.begin().put("k".getBytes(UTF_8), "v".getBytes(UTF_8)).commit().toCompletableFuture().get(30, TimeUnit.SECONDS);
      for (int round = 0; round < 2; round++) {
        ReplicaNode node = ReplicaNode.start(settings(reader));
        nodes.add(node);
        ReplicatedDatabase listener = node.host(group);
        CompletableFuture<?> linearizable = listener.get(io.commitlane.storage.Store.DEFAULT, "k".getBytes(UTF_8), ReadConsistency.LINEARIZABLE)
            .toCompletableFuture();
        CompletableFuture<?> local = listener.get(io.commitlane.storage.Store.DEFAULT, "k".getBytes(UTF_8), ReadConsistency.LOCAL)
            .toCompletableFuture();
        CompletableFuture<?> committed = listener.begin().put(("r" + round).getBytes(UTF_8), "v".getBytes(UTF_8)).commit()
            .toCompletableFuture();
        listener.status();
        linearizable.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        local.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        committed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        listener.sync().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        nodes.remove(node);
        node.close();
      }
    } finally {
      ReplicaCluster.closeAll(new ArrayList<>(nodes));
      log.close();
    }
    assertEquals(List.of(), log.errors(), "logged at ERROR while a listener started and was used");
  }

  /**
   * A follower's node stopped while its leader goes on: Ratis takes about a second to close a
   * replica, and the leader's heartbeats keep arriving meanwhile. With the logging replication.md
   * gives, nothing at ERROR.
   */
  @Test
  void aFollowerStoppedWhileItsLeaderSendsToItLogsNoError() throws Exception {
    RatisLog log = new RatisLog(Level.ERROR); // as replication.md gives
    List<ReplicaNode> nodes = new ArrayList<>();
    try {
      List<ReplicaPeer> voters = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        voters.add(new ReplicaPeer("v" + i, "127.0.0.1", ReplicaCluster.freePort()));
      }
      ReplicationGroup group = new ReplicationGroup("stock", voters);
      List<ReplicatedDatabase> replicas = new ArrayList<>();
      for (ReplicaPeer v : voters) {
        ReplicaNode node = ReplicaNode.start(settings(v));
        nodes.add(node);
        replicas.add(node.host(group));
      }
      replicas.get(0).begin().put("k".getBytes(UTF_8), "v".getBytes(UTF_8)).commit().toCompletableFuture().get(30, TimeUnit.SECONDS);
      for (int round = 0; round < 2; round++) {
        int follower = -1;
        for (int i = 0; i < nodes.size() && follower < 0; i++) {
          if (!replicas.get(i).status().role().equals("LEADER")) {
            follower = i;
          }
        }
        replicas.get(0).sync().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        nodes.get(follower).close(); // the leader heartbeats it while it closes
        ReplicaNode again = ReplicaNode.start(settings(voters.get(follower)));
        nodes.set(follower, again);
        replicas.set(follower, again.host(group));
      }
    } finally {
      ReplicaCluster.closeAll(new ArrayList<>(nodes));
      log.close();
    }
    assertEquals(List.of(), log.errors(), "logged at ERROR while a follower stopped");
  }

  private ReplicaNodeSettings settings(ReplicaPeer peer) {
    return ReplicaNodeSettings.of(peer, dir.resolve(peer.id())).withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600));
  }

  /**
   * Every log event while it is open, with {@code org.apache.ratis} at a given level and Ratis's
   * ordered-client logger off (as replication.md advises); closing restores both levels.
   */
  private static final class RatisLog implements AutoCloseable {
    private final Logger root;
    private final Logger ratis;
    private final Logger ordered;
    private final Level ratisBefore;
    private final Level orderedBefore;
    final ListAppender<ILoggingEvent> events = new ListAppender<>();

    RatisLog(Level ratisLevel) {
      LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
      root = context.getLogger(Logger.ROOT_LOGGER_NAME);
      ratis = context.getLogger("org.apache.ratis");
      ordered = context.getLogger("org.apache.ratis.client.impl.OrderedAsync");
      ratisBefore = ratis.getLevel();
      orderedBefore = ordered.getLevel();
      ratis.setLevel(ratisLevel);
      ordered.setLevel(Level.OFF);
      events.setContext(context);
      events.start();
      root.addAppender(events);
    }

    /** Each event at ERROR or above, as its logger and message. */
    List<String> errors() {
      return seen(events).stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
          .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).toList();
    }

    @Override
    public void close() {
      root.detachAppender(events);
      ratis.setLevel(ratisBefore);
      ordered.setLevel(orderedBefore);
    }
  }

  /** What the appender holds now; it appends under its own lock. */
  private static List<ILoggingEvent> seen(ListAppender<ILoggingEvent> events) {
    synchronized (events) {
      return List.copyOf(events.list);
    }
  }

  /** Waits until a log event after {@code from} mentions that a replica was not ready: a request reached it while it started. */
  private static void awaitNotReady(ListAppender<ILoggingEvent> events, int from) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<ILoggingEvent> seen = seen(events);
      for (ILoggingEvent e : seen.subList(Math.min(from, seen.size()), seen.size())) {
        if (mentionsNotReady(e)) {
          return;
        }
      }
      Thread.sleep(10); // the leader sends on its own heartbeat timer
    }
    throw new AssertionError("the leader sent nothing to the starting listener within " + WAIT);
  }

  private static boolean mentionsNotReady(ILoggingEvent e) {
    if (e.getFormattedMessage().contains("ServerNotReadyException")) {
      return true;
    }
    for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
      if (t.getClassName().endsWith("ServerNotReadyException")) {
        return true;
      }
    }
    return false;
  }
}
