package io.commitlane.bench.replication;

import io.commitlane.bench.cluster.ShardedWriteLoad;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.pipeline.Trial;
import io.commitlane.replication.CommitReceipt;
import io.commitlane.replication.ReplicaStatus;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicatedTransaction;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * Part 2 of {@code replication}: the leader stops ({@link io.commitlane.replication.ReplicaNode#close()})
 * under a light load, and the time until the group acknowledges a commit again. Per trial:
 *
 * <ol>
 *   <li>{@link #BACKGROUND_CLIENTS} clients (one per node) keep {@link #BACKGROUND_IN_FLIGHT}
 *       commits each in flight for the warm-up (a client whose node stops moves to the next);
 *   <li>from just before the stop, a probe also begins a one-key commit every {@link
 *       #PROBE_PERIOD_MILLIS} ms through the surviving nodes' handles, in turn, so that fresh
 *       commits keep arriving whatever the clients are waiting for;
 *   <li>the leader's node is closed ({@code close()} takes about a second, most of it Ratis
 *       closing its log); a watcher notes when a survivor first reports itself leader in a later
 *       term;
 *   <li>the failover time runs from the call to {@code close()} to the first commit (probe or
 *       client) acknowledged once a new leader was seen or {@code close()} had returned, whichever
 *       came first: an acknowledgement before both may still come from the old leader;
 *   <li>the node starts again on its directory and catches up before the next trial.
 * </ol>
 */
final class ReplicationFailover {
  static final int BACKGROUND_CLIENTS = 3;
  static final int BACKGROUND_IN_FLIGHT = 4;
  static final long PROBE_PERIOD_MILLIS = 10;
  /** Probes in flight at most: each waits up to the request timeout for a leader. */
  private static final int MAX_PROBES_IN_FLIGHT = 64;
  private static final long WATCH_PERIOD_MILLIS = 5;
  private static final Duration WAIT = Duration.ofSeconds(120);

  /**
   * One trial; times in seconds after the call to {@code close()} on the leader ({@code
   * firstAckSeconds} NaN if no commit was acknowledged within the wait). {@code rejoinSeconds}:
   * from the restart of the stopped node until it applied as far as the leader; NaN, with {@code
   * rejoinError} saying where each node stood, if it did not within the wait.
   */
  record Trial(int trial, String stopped, long oldTerm, double closeSeconds, double electedSeconds, String newLeader, long newTerm,
      double firstAckSeconds, long probes, long backgroundFailures, double rejoinSeconds, String rejoinError) {}

  private final double warmup;

  ReplicationFailover(double warmup) {
    this.warmup = warmup;
  }

  /** Runs {@code trials} trials on {@code cluster}, appending to {@code done} as it goes. */
  void measure(ReplicaLoopback cluster, int trials, List<Trial> done, PrintStream out) throws Exception {
    cluster.awaitLevel(WAIT);
    for (int t = 0; t < trials; t++) {
      StopSignal.checkpoint();
      Trial trial = trial(cluster, t);
      done.add(trial);
      out.printf(Locale.ROOT, "  failover trial %d  stopped %s (term %d): close() %.2f s, %s leads (term %d) at +%s s,"
              + " first acknowledged commit at +%s s (%d probes sent); %d client commits failed; rejoined in %s s%n",
          t + 1, trial.stopped(), trial.oldTerm(), trial.closeSeconds(), trial.newLeader(), trial.newTerm(), seconds(trial.electedSeconds()),
          seconds(trial.firstAckSeconds()), trial.probes(), trial.backgroundFailures(), seconds(trial.rejoinSeconds()));
      if (trial.rejoinError() != null) {
        // The next trials would run on two replicas: stop here, with this trial's figures kept.
        throw new IllegalStateException("trial " + (t + 1) + ": the stopped leader " + trial.stopped() + " did not catch up after its restart: "
            + trial.rejoinError());
      }
    }
  }

  private Trial trial(ReplicaLoopback cluster, int number) throws Exception {
    ScheduledExecutorService timers = Executors.newScheduledThreadPool(1, r -> {
      Thread th = new Thread(r, "commitlane-failover-probe");
      th.setDaemon(true);
      return th;
    });
    ReplicatedWriteLoad background = new ReplicatedWriteLoad(cluster,
        ReplicatedWriteLoad.spread(BACKGROUND_CLIENTS, cluster.size(), -1), BACKGROUND_IN_FLIGHT, Long.MAX_VALUE).start();
    try {
      ContentionRunner.pause(Math.max(1, warmup));
      int leader = cluster.awaitLeader(WAIT);
      long oldTerm = cluster.status(leader).term();
      long failedBefore = background.failed();
      AtomicReference<long[]> elected = new AtomicReference<>(); // {nanos, node, term}
      ConcurrentSkipListSet<Long> acks = new ConcurrentSkipListSet<>();
      Probe probe = new Probe(cluster, leader, acks::add);

      long stopAt = System.nanoTime();
      background.onAck(acks::add);
      timers.scheduleAtFixedRate(() -> watchElection(cluster, leader, oldTerm, elected), 0, WATCH_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
      timers.scheduleAtFixedRate(probe::send, 0, PROBE_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
      cluster.stop(leader);
      long closed = System.nanoTime();

      long deadline = System.nanoTime() + WAIT.toNanos();
      while ((elected.get() == null || acks.ceiling(closed) == null) && System.nanoTime() < deadline) {
        ContentionRunner.pause(0.005);
      }
      long[] e = elected.get();
      Long firstAck = acks.ceiling(e == null ? closed : Math.min(closed, e[0]));
      long failedDuring = background.failed() - failedBefore;

      long restart = System.nanoTime();
      cluster.start(leader);
      String rejoinError = null;
      try {
        cluster.awaitLevel(WAIT);
      } catch (IllegalStateException notLevel) {
        rejoinError = notLevel.getMessage();
      }
      double rejoin = rejoinError != null ? Double.NaN : (System.nanoTime() - restart) / 1e9;
      return new Trial(number, cluster.id(leader), oldTerm, (closed - stopAt) / 1e9, e == null ? Double.NaN : (e[0] - stopAt) / 1e9,
          e == null ? "-" : cluster.id((int) e[1]), e == null ? 0 : e[2],
          firstAck == null ? Double.NaN : (firstAck - stopAt) / 1e9, probe.sent.get(), failedDuring, rejoin, rejoinError);
    } finally {
      timers.shutdownNow();
      background.stop(WAIT);
      background.close();
    }
  }

  /** Notes the first time a node other than the stopped one reports itself leader in a later term. */
  private static void watchElection(ReplicaLoopback cluster, int stopped, long oldTerm, AtomicReference<long[]> elected) {
    if (elected.get() != null) {
      return;
    }
    for (int i = 0; i < cluster.size(); i++) {
      ReplicaStatus s = i == stopped ? null : cluster.status(i);
      if (s != null && s.role().equals("LEADER") && s.term() > oldTerm) {
        elected.compareAndSet(null, new long[] {System.nanoTime(), i, s.term()});
        return;
      }
    }
  }

  /** Begins a commit through the next surviving node at each call (at most {@link #MAX_PROBES_IN_FLIGHT} in flight). */
  private static final class Probe {
    private final ReplicaLoopback cluster;
    private final int stopped;
    private final LongConsumer acks;
    final AtomicLong sent = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private int turn;

    Probe(ReplicaLoopback cluster, int stopped, LongConsumer acks) {
      this.cluster = cluster;
      this.stopped = stopped;
      this.acks = acks;
    }

    /** Runs on the timer thread only. */
    void send() {
      if (inFlight.get() >= MAX_PROBES_IN_FLIGHT) {
        return;
      }
      int node = turn++ % (cluster.size() - 1);
      node = node >= stopped ? node + 1 : node;
      ReplicatedDatabase db = cluster.database(node);
      if (db == null) {
        return;
      }
      ThreadLocalRandom rnd = ThreadLocalRandom.current();
      byte[] value = new byte[ShardedWriteLoad.VALUE_BYTES];
      rnd.nextBytes(value);
      CompletionStage<CommitReceipt> commit;
      try {
        ReplicatedTransaction t = db.begin();
        t.put(ByteBuffer.allocate(8).putLong(rnd.nextInt(ShardedWriteLoad.KEY_SPACE)).array(), value);
        commit = t.commit();
      } catch (RuntimeException e) {
        return; // the survivor's replica is busy (restoring a snapshot): the next tick tries again
      }
      sent.incrementAndGet();
      inFlight.incrementAndGet();
      // Runs on the survivor's completion thread; only notes the time.
      commit.whenComplete((receipt, error) -> {
        inFlight.decrementAndGet();
        if (error == null) {
          acks.accept(System.nanoTime());
        }
      });
    }
  }

  static String seconds(double s) {
    return Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.2f", s);
  }
}
