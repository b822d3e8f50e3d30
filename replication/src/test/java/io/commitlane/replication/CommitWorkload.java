package io.commitlane.replication;

import io.commitlane.replication.internal.entry.CommitBatcher;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Clients that commit through whichever replica is running, each a sequence of commits that write
 * a new key {@code c<client>/<n>} and increment the client's counter {@code count/c<client>} by
 * read-modify-write. Every commit carries a request id and is resent with it until it commits,
 * through any replica, so the counter equals the number of acknowledged commits exactly when
 * nothing was applied twice and nothing acknowledged was lost.
 */
final class CommitWorkload implements AutoCloseable {
  private final IntFunction<ReplicatedDatabase> handles;
  private final int nodes;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong highestIndex = new AtomicLong();
  /** Per client: how many of its commits were acknowledged. */
  final Map<Integer, Long> acks = new ConcurrentHashMap<>();
  /** Nanos of each acknowledgement, for the failover time. */
  private final AtomicLong lastAckNanos = new AtomicLong();
  final AtomicLong retries = new AtomicLong();
  /** The highest slot an acknowledged commit had in its entry: above 0 once commits shared entries. */
  final AtomicInteger highestSlot = new AtomicInteger();
  private final boolean ownLogs;

  CommitWorkload(ReplicaCluster cluster, int clients) {
    this(cluster::database, cluster.size(), clients);
  }

  /** Clients that commit through {@code handles.apply(node)}, trying the next node when one is null or fails. */
  CommitWorkload(IntFunction<ReplicatedDatabase> handles, int nodes, int clients) {
    this(handles, nodes, clients, false);
  }

  /**
   * Clients whose commits append to a log of their own ({@code commits-c<client>}) instead of the
   * shared {@link #LOG}: their commits sent through one handle at once share entries ({@link
   * CommitBatcher}), which commits appending to one log never do.
   */
  static CommitWorkload batched(IntFunction<ReplicatedDatabase> handles, int nodes, int clients) {
    return new CommitWorkload(handles, nodes, clients, true);
  }

  private CommitWorkload(IntFunction<ReplicatedDatabase> handles, int nodes, int clients, boolean ownLogs) {
    this.handles = handles;
    this.nodes = nodes;
    this.ownLogs = ownLogs;
    for (int c = 0; c < clients; c++) {
      int client = c;
      acks.put(client, 0L);
      Thread t = new Thread(() -> run(client), "workload-client-" + c);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** Each commit appends its request id to this transaction log. */
  static final String LOG = "commits";

  private void run(int client) {
    long n = 0;
    int node = client % nodes;
    while (running.get()) {
      byte[] id = ("c" + client + "/" + n).getBytes(UTF_8);
      while (running.get()) {
        ReplicatedDatabase db = handles.apply(node);
        if (db == null) {
          node = (node + 1) % nodes;
          continue;
        }
        try {
          ReplicatedTransaction t = db.begin();
          byte[] count = t.get(("count/c" + client).getBytes(UTF_8));
          long next = (count == null ? 0 : Long.parseLong(new String(count, UTF_8))) + 1;
          t.put(("count/c" + client).getBytes(UTF_8), Long.toString(next).getBytes(UTF_8));
          t.put(id, ("v" + n).getBytes(UTF_8));
          t.log(ownLogs ? LOG + "-c" + client : LOG, id);
          CommitReceipt r = t.commit(id).toCompletableFuture().get(60, TimeUnit.SECONDS);
          highestIndex.accumulateAndGet(r.index(), Math::max);
          highestSlot.accumulateAndGet(r.slot(), Math::max);
          acks.merge(client, 1L, Long::sum);
          acknowledged.incrementAndGet();
          lastAckNanos.set(System.nanoTime());
          break;
        } catch (Exception e) {
          // A conflict (a lagging replica's snapshot), no leader yet, or a node stopped under the
          // client: send the same request id again, through the next replica, after a pause that
          // keeps a failing loop from taking the cores the replicas need.
          retries.incrementAndGet();
          pause();
          node = (node + 1) % nodes;
        }
      }
      n++;
    }
  }

  /** 10 ms between a failed attempt and the next: a backoff, not a wait for anything. */
  static void pause() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  long acknowledged() {
    return acknowledged.get();
  }

  long highestIndex() {
    return highestIndex.get();
  }

  /** Waits until {@code count} more commits are acknowledged than when called; returns the nanos of the first of them. */
  long awaitMore(long count, long timeoutMillis) throws InterruptedException {
    long start = acknowledged.get();
    long firstAt = 0;
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (acknowledged.get() < start + count) {
      if (firstAt == 0 && acknowledged.get() > start) {
        firstAt = lastAckNanos.get();
      }
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("only " + (acknowledged.get() - start) + " of " + count + " commits acknowledged in " + timeoutMillis + " ms");
      }
      Thread.sleep(1);
    }
    return firstAt == 0 ? lastAckNanos.get() : firstAt;
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(120_000);
    }
  }
}
