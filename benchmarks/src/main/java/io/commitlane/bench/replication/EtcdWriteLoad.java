package io.commitlane.bench.replication;

import io.commitlane.bench.cluster.ShardedWriteLoad;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.WindowListener;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * {@link ReplicatedWriteLoad}'s counterpart for the etcd peer, through jetcd: clients that each
 * keep {@code inFlight} writes going, client {@code c} through member {@code clientMembers[c]}
 * (one jetcd client per member, shared by the clients on it, as the replicated load shares a
 * node's handle). A one-key blind commit is a {@code Put}; a commit of several keys is one {@code
 * Txn} of that many puts; a read-modify-write is a linearizable {@code Get} of the key, then a
 * {@code Txn} that puts it if its revision is still the one read (else counted as a conflict).
 *
 * <p>The next write of a chain starts in the previous one's completion, on jetcd's completion
 * threads (two, as a replica node has). A failed write is counted and the chain goes on.
 */
final class EtcdWriteLoad implements AutoCloseable {
  private final List<Client> clients = new ArrayList<>();
  private final KV[] chainKv;
  private final CommitShape shape;
  private final ExecutorService completions;
  private final LongAdder committed = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder conflicted = new LongAdder();
  private final LongAdder outstanding = new LongAdder();
  private final Recorder latency = new Recorder(3);
  private volatile boolean stopping;

  EtcdWriteLoad(EtcdCluster cluster, int[] clientMembers, int inFlight, CommitShape shape) {
    this.shape = shape;
    AtomicInteger threads = new AtomicInteger();
    this.completions = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "commitlane-etcd-load-completion-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    KV[] byMember = new KV[cluster.size()];
    for (int m = 0; m < cluster.size(); m++) {
      Client c = Client.builder().endpoints(cluster.endpoint(m)).executorService(completions).build();
      clients.add(c);
      byMember[m] = c.getKVClient();
    }
    chainKv = new KV[clientMembers.length * inFlight];
    for (int c = 0; c < clientMembers.length; c++) {
      for (int f = 0; f < inFlight; f++) {
        chainKv[c * inFlight + f] = byMember[clientMembers[c]];
      }
    }
  }

  EtcdWriteLoad start() {
    for (int chain = 0; chain < chainKv.length; chain++) {
      outstanding.increment();
      next(chain);
    }
    return this;
  }

  /** As {@link ReplicatedWriteLoad#window(double, double, WindowListener)}. */
  ShardedWriteLoad.Rates window(double warmup, double seconds, WindowListener listener) throws Exception {
    return ShardedWriteLoad.Rates.window(warmup, seconds, committed, conflicted, failed, latency, listener);
  }

  /** Begins no new write and waits up to {@code drain} for those in flight; returns how many were still out. */
  long stop(Duration drain) throws InterruptedException {
    stopping = true;
    long deadline = System.nanoTime() + drain.toNanos();
    while (outstanding.sum() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20); // draining the chains before their clients close
    }
    return outstanding.sum();
  }

  @Override
  public void close() {
    stopping = true;
    clients.forEach(Client::close);
    completions.shutdown();
  }

  private void next(int chain) {
    if (stopping) {
      outstanding.decrement();
      return;
    }
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    byte[][] drawn = shape.drawKeys(rnd);
    ByteSequence[] keys = new ByteSequence[drawn.length];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = ByteSequence.from(drawn[k]);
    }
    byte[] bytes = new byte[ShardedWriteLoad.VALUE_BYTES];
    rnd.nextBytes(bytes);
    ByteSequence value = ByteSequence.from(bytes);
    KV kv = chainKv[chain];
    long begin = System.nanoTime();
    CompletableFuture<Boolean> write;
    try {
      write = switch (shape.kind()) {
        case BLIND -> keys.length == 1 ? kv.put(keys[0], value).thenApply(r -> true) : putAll(kv, keys, value);
        case READ_MODIFY_WRITE, EXPECTING_READ_MODIFY_WRITE -> readModifyWrite(kv, keys[0], value);
      };
    } catch (RuntimeException e) {
      failed.increment();
      outstanding.decrement(); // the client closed under the chain: it ends
      return;
    }
    write.whenComplete((written, error) -> {
      if (error != null) {
        failed.increment();
      } else if (written) {
        latency.recordValue(System.nanoTime() - begin);
        committed.increment();
      } else {
        conflicted.increment();
      }
      next(chain);
    });
  }

  private static CompletableFuture<Boolean> putAll(KV kv, ByteSequence[] keys, ByteSequence value) {
    Op[] puts = new Op[keys.length];
    for (int k = 0; k < keys.length; k++) {
      puts[k] = Op.put(keys[k], value, PutOption.DEFAULT);
    }
    return kv.txn().Then(puts).commit().thenApply(r -> true);
  }

  /** A linearizable read of the key, then a put of it if its revision has not moved since (a missing key has revision 0). */
  private static CompletableFuture<Boolean> readModifyWrite(KV kv, ByteSequence key, ByteSequence value) {
    return kv.get(key).thenCompose(read -> {
      List<KeyValue> kvs = read.getKvs();
      long revision = kvs.isEmpty() ? 0 : kvs.get(0).getModRevision();
      return kv.txn()
          .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(revision)))
          .Then(Op.put(key, value, PutOption.DEFAULT))
          .commit()
          .thenApply(r -> r.isSucceeded());
    });
  }
}
