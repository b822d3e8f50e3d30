package io.commitlane.bench.replication;

import io.commitlane.bench.cluster.ShardedWriteLoad;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.WindowListener;
import io.commitlane.replication.CommitReceipt;
import io.commitlane.replication.ReadConsistency;
import io.commitlane.replication.ReplicaConflictException;
import io.commitlane.replication.ReplicaExpectationException;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicatedTransaction;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import org.HdrHistogram.Recorder;

/**
 * The replicated counterpart of {@link ShardedWriteLoad}: clients that each keep {@code inFlight}
 * commits going, one-key blind commits unless told otherwise ({@link CommitShape}: random keys of
 * {@link ShardedWriteLoad#KEY_SPACE}, values of {@link ShardedWriteLoad#VALUE_BYTES} random bytes),
 * client {@code c} through the handle of node {@code clientNodes[c]}. A commit that fails (its node
 * stopped, no leader within the request timeout) is begun again after a short pause through the
 * next running node; one that conflicts (a read-modify-write whose key changed) is counted and the
 * chain goes on with the next. Latency is timed from the first call (a local read's, or {@code
 * begin()}) to the receipt.
 *
 * <p>The next commit of a chain is begun in the previous one's completion, on the replica node's
 * completion thread that completed it (never the common pool); retries after a failure wait on
 * this load's own scheduler thread.
 */
final class ReplicatedWriteLoad implements AutoCloseable {
  private static final long RETRY_PAUSE_MILLIS = 10;
  /** The store {@code ReplicatedTransaction.put(key, value)} writes. */
  private static final String STORE = "default";

  private final ReplicaLoopback cluster;
  /** Per chain: the node it commits through now. */
  private final AtomicLongArray chainNode;
  private final ScheduledExecutorService retries;
  private final LongAdder committed = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder conflicted = new LongAdder();
  private final LongAdder outstanding = new LongAdder();
  private final AtomicLong begun = new AtomicLong();
  private final Recorder latency = new Recorder(3);
  private final long limit;
  private final CommitShape shape;
  private volatile boolean stopping;
  private volatile LongConsumer acks = at -> { };

  /**
   * @param clientNodes the node each client commits through (its length is the number of clients)
   * @param limit how many commits to begin in all (retries of a failed one not counted); {@code
   *     Long.MAX_VALUE} for no limit
   */
  ReplicatedWriteLoad(ReplicaLoopback cluster, int[] clientNodes, int inFlight, long limit) {
    this(cluster, clientNodes, inFlight, limit, CommitShape.ONE_KEY);
  }

  /** As {@link #ReplicatedWriteLoad(ReplicaLoopback, int[], int, long)}, each commit of {@code shape}. */
  ReplicatedWriteLoad(ReplicaLoopback cluster, int[] clientNodes, int inFlight, long limit, CommitShape shape) {
    this.cluster = cluster;
    this.limit = limit;
    this.shape = shape;
    this.chainNode = new AtomicLongArray(clientNodes.length * inFlight);
    for (int c = 0; c < clientNodes.length; c++) {
      for (int f = 0; f < inFlight; f++) {
        chainNode.set(c * inFlight + f, clientNodes[c]);
      }
    }
    this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "commitlane-replicated-load-retries");
      t.setDaemon(true);
      return t;
    });
  }

  /** {@code clients} clients spread over the nodes in turn (client {@code c} on node {@code c % size}), skipping {@code except} (-1: none). */
  static int[] spread(int clients, int size, int except) {
    int[] nodes = new int[clients];
    int n = 0;
    for (int c = 0; c < clients; c++) {
      if (n == except) {
        n = (n + 1) % size;
      }
      nodes[c] = n;
      n = (n + 1) % size;
    }
    return nodes;
  }

  /** Begins every chain's first commit. */
  ReplicatedWriteLoad start() {
    for (int chain = 0; chain < chainNode.length(); chain++) {
      outstanding.increment();
      next(chain);
    }
    return this;
  }

  /** Tells {@code listener} the time ({@link System#nanoTime()}) of every acknowledgement from now on, on the completing thread. */
  void onAck(LongConsumer listener) {
    acks = listener;
  }

  long committed() {
    return committed.sum();
  }

  long failed() {
    return failed.sum();
  }

  long conflicted() {
    return conflicted.sum();
  }

  /** Commits begun and not yet answered (or given up). */
  long outstanding() {
    return outstanding.sum();
  }

  /**
   * Lets the load run {@code warmup} seconds, then measures {@code seconds}: commits and failures
   * per second, and the latency of the commits acknowledged in the window.
   */
  ShardedWriteLoad.Rates window(double warmup, double seconds) throws Exception {
    return window(warmup, seconds, WindowListener.NONE);
  }

  /** As {@link #window(double, double)}, telling {@code listener} when the measured window opens and closes. */
  ShardedWriteLoad.Rates window(double warmup, double seconds, WindowListener listener) throws Exception {
    return ShardedWriteLoad.Rates.window(warmup, seconds, committed, conflicted, failed, latency, listener);
  }

  /** Waits until the {@code limit} commits are all answered (or {@code timeout} passed); false if some are still out. */
  boolean awaitDone(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (outstanding.sum() > 0) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      ContentionRunner.pause(0.02);
    }
    return true;
  }

  /**
   * Begins no new commit and waits up to {@code drain} for those in flight (also after a stop
   * request: this is clean-up). Returns how many were still out: a commit through a node that
   * stopped meanwhile may never be answered.
   */
  long stop(Duration drain) throws InterruptedException {
    stopping = true;
    long deadline = System.nanoTime() + drain.toNanos();
    while (outstanding.sum() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20); // draining the chains before their nodes close
    }
    return outstanding.sum();
  }

  @Override
  public void close() {
    stopping = true;
    retries.shutdownNow();
  }

  private void next(int chain) {
    if (stopping || begun.incrementAndGet() > limit) {
      outstanding.decrement();
      return;
    }
    attempt(chain);
  }

  private void attempt(int chain) {
    ReplicatedDatabase db = runningNode(chain);
    if (db == null) {
      retryLater(chain);
      return;
    }
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    byte[][] keys = shape.drawKeys(rnd);
    byte[] value = new byte[ShardedWriteLoad.VALUE_BYTES];
    rnd.nextBytes(value);
    long begin = System.nanoTime();
    CompletionStage<CommitReceipt> commit;
    try {
      commit = shape.kind() == CommitShape.Kind.EXPECTING_READ_MODIFY_WRITE
          ? db.get(STORE, keys[0], ReadConsistency.LOCAL)
              .thenCompose(old -> expecting(db, keys[0], old, value)) // on the node's completion thread, as the actor does
          : transact(db, keys, value);
    } catch (RuntimeException e) {
      // the node stopped under this chain (its replica closed): go on through the next one
      failed.increment();
      moveOn(chain);
      retryLater(chain);
      return;
    }
    commit.whenComplete((receipt, error) -> {
      if (error == null) {
        long now = System.nanoTime();
        latency.recordValue(now - begin);
        committed.increment();
        acks.accept(now);
        next(chain);
      } else if (unwrap(error) instanceof ReplicaConflictException || unwrap(error) instanceof ReplicaExpectationException) {
        conflicted.increment();
        next(chain);
      } else {
        failed.increment();
        moveOn(chain);
        retryLater(chain);
      }
    });
  }

  /** One transaction of this load's shape: blind puts, or a read of the key and a put of it. */
  private CompletionStage<CommitReceipt> transact(ReplicatedDatabase db, byte[][] keys, byte[] value) {
    ReplicatedTransaction t = db.begin();
    if (shape.reads()) {
      byte[] old = t.get(keys[0]);
      if (old != null) {
        value[0] = (byte) (old[0] + 1); // written back changed, as a read-modify-write would
      }
    }
    for (byte[] key : keys) {
      t.put(key, value);
    }
    return t.commit();
  }

  /** A write of {@code key} that holds only if it still holds {@code old} at its place in the log. */
  private static CompletionStage<CommitReceipt> expecting(ReplicatedDatabase db, byte[] key, byte[] old, byte[] value) {
    if (old != null) {
      value[0] = (byte) (old[0] + 1);
    }
    return db.begin().expect(STORE, key, old).put(key, value).commit();
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
  }

  /** The handle of the chain's node if it runs, else of the next node that does (the chain moves there); null if none runs. */
  private ReplicatedDatabase runningNode(int chain) {
    int size = cluster.size();
    for (int i = 0; i < size; i++) {
      int node = (int) ((chainNode.get(chain) + i) % size);
      ReplicatedDatabase db = cluster.database(node);
      if (db != null) {
        chainNode.set(chain, node);
        return db;
      }
    }
    return null;
  }

  private void moveOn(int chain) {
    chainNode.set(chain, (chainNode.get(chain) + 1) % cluster.size());
  }

  private void retryLater(int chain) {
    if (stopping) {
      outstanding.decrement();
      return;
    }
    try {
      retries.schedule(() -> attempt(chain), RETRY_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      outstanding.decrement(); // closed
    }
  }
}
