package io.commitlane.bench.ingest;

import io.commitlane.actors.AdmissionTicket;
import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.stream.CommitFlow;
import io.commitlane.actors.stream.CommitFlowSettings;
import io.commitlane.actors.stream.WriteRequest;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Transaction;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * Who gets the commit queue when it is full: two commit-flow streams and plain callers share one
 * database with a small queue for a fixed time, each committing 1-record transactions as fast as
 * it may; the result is each one's committed transactions. The plain caller retries a commit the
 * full queue refused after a short pause (what {@link CommitQueueFullException} asks for); the
 * waiting caller takes an {@link AdmissionTicket} instead and commits when it is granted.
 */
final class AdmissionFairness {
  static final String STREAM_A = "stream A (commit flow)";
  static final String STREAM_B = "stream B (commit flow)";
  static final String PLAIN = "plain caller, retries after 100 µs";
  static final String WAITING = "plain caller, awaitAdmission";

  private final int inFlight;
  private final IntFunction<byte[]> key;
  private final byte[] value;

  AdmissionFairness(int inFlight, IntFunction<byte[]> key, byte[] value) {
    this.inFlight = inFlight;
    this.key = key;
    this.value = value;
  }

  /** Commits per participant in {@code seconds}. */
  Map<String, Long> run(ActorSystem<?> system, CommitlaneDatabase db, double seconds, boolean waitingCaller) throws Exception {
    Map<String, AtomicLong> counts = new LinkedHashMap<>();
    for (String p : waitingCaller ? new String[] {STREAM_A, STREAM_B, PLAIN, WAITING} : new String[] {STREAM_A, STREAM_B, PLAIN}) {
      counts.put(p, new AtomicLong());
    }
    stopping = false;
    Pair<UniqueKillSwitch, CompletionStage<Done>> a = stream(system, db, 0, counts.get(STREAM_A));
    Pair<UniqueKillSwitch, CompletionStage<Done>> b = stream(system, db, 1 << 28, counts.get(STREAM_B));
    Thread plain = caller(db, 2 << 28, counts.get(PLAIN), false);
    Thread waiting = waitingCaller ? caller(db, 3 << 28, counts.get(WAITING), true) : null;
    long start = System.nanoTime();
    LockSupport.parkNanos((long) (seconds * 1e9));
    Map<String, Long> out = new LinkedHashMap<>();
    counts.forEach((k, v) -> out.put(k, v.get())); // the window: what committed until now
    stopping = true;
    a.first().shutdown();
    b.first().shutdown();
    a.second().toCompletableFuture().get(1, TimeUnit.MINUTES);
    b.second().toCompletableFuture().get(1, TimeUnit.MINUTES);
    plain.join();
    if (waiting != null) {
      waiting.join();
    }
    out.put("_nanos", System.nanoTime() - start);
    return out;
  }

  private volatile boolean stopping;

  private Pair<UniqueKillSwitch, CompletionStage<Done>> stream(ActorSystem<?> system, CommitlaneDatabase db, int base, AtomicLong count) {
    return Source.range(0, Integer.MAX_VALUE - 1)
        .map(i -> WriteRequest.builder(i).put(key.apply(base + (i & ((1 << 28) - 1))), value).build())
        .viaMat(KillSwitches.single(), Keep.right())
        .via(CommitFlow.unordered(db, CommitFlowSettings.defaults().withParallelism(inFlight)))
        .toMat(Sink.foreach(o -> {
          if (o.isCommitted()) {
            count.incrementAndGet();
          }
        }), Keep.both())
        .run(system);
  }

  /** A caller thread with {@code inFlight} commits outstanding. */
  private Thread caller(CommitlaneDatabase db, int base, AtomicLong count, boolean waits) {
    Thread t = new Thread(() -> {
      Semaphore slots = new Semaphore(inFlight);
      int i = 0;
      while (!stopping) {
        try {
          if (!slots.tryAcquire(10, TimeUnit.MILLISECONDS)) {
            continue;
          }
        } catch (InterruptedException e) {
          return;
        }
        byte[] k = key.apply(base + (i++ & ((1 << 28) - 1)));
        commit(db, k, waits, slots, count);
      }
      slots.acquireUninterruptibly(inFlight); // let what is in flight finish
    }, waits ? "fairness-waiting-caller" : "fairness-plain-caller");
    t.start();
    return t;
  }

  /** One commit; a full queue is retried after a pause, or (waits) waited for in line on this caller's thread. */
  private void commit(CommitlaneDatabase db, byte[] k, boolean waits, Semaphore slots, AtomicLong count) {
    CompletableFuture<CommitResult> f;
    while (true) {
      Transaction txn = db.begin();
      txn.put(k, value);
      f = db.commit(txn).toCompletableFuture();
      if (!(f.isCompletedExceptionally() && causeOf(f) instanceof CommitQueueFullException)) {
        break;
      }
      if (stopping) {
        slots.release();
        return;
      }
      if (!waits) {
        LockSupport.parkNanos(100_000);
        continue;
      }
      CompletableFuture<Void> granted = new CompletableFuture<>();
      AdmissionTicket ticket = db.awaitAdmission(() -> granted.complete(null)); // the granting thread only completes
      granted.join();
      Transaction held = db.begin();
      held.put(k, value);
      f = db.commit(held, ticket).toCompletableFuture();
      break;
    }
    f.whenComplete((r, e) -> {
      if (e == null) {
        count.incrementAndGet();
      }
      slots.release();
    });
  }

  private static Throwable causeOf(CompletableFuture<?> f) {
    try {
      f.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause();
    }
  }
}
