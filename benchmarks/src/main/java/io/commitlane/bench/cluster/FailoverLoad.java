package io.commitlane.bench.cluster;

import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.cluster.DatabaseSharding;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The failover benchmark's client: {@code slots} writes in flight, each a new key of its own in
 * one of the databases (round robin), with its request id (or none) and a log entry naming it.
 * A write is sent again, with the same id, until it is committed: at once after {@code NO_REPLY}
 * (the ask timeout already waited), after a short pause after other refusals. Records when each
 * database committed its first write of each owner epoch, every acknowledged write, and the
 * refusals by reason.
 */
final class FailoverLoad {
  /** One write: its database, key and id; the value and the log entry are the id. */
  record Write(String db, String key, String id) {}

  /** An acknowledged write, with when it was first sent and acknowledged (ns). */
  record Ack(Write write, long sentAt, long ackedAt, long epoch) {}

  private static final Duration PAUSE = Duration.ofMillis(50);

  private final ActorSystem<?> system;
  private final DatabaseSharding client;
  private final List<String> databases;
  private final boolean ids;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final LongAdder outstanding = new LongAdder();
  final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
  /** Per database: owner epoch -> when its first write of that epoch was acknowledged (ns). */
  final Map<String, Map<Long, Long>> firstCommitOfEpoch = new ConcurrentHashMap<>();
  /** Per database: when its latest write was acknowledged (ns), whatever the owner. */
  final Map<String, AtomicLong> lastAckedAt = new ConcurrentHashMap<>();
  /** Refusals by reason; {@code NO_REPLY} answers also with their times. */
  final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();
  final ConcurrentLinkedQueue<Long> noReplyAt = new ConcurrentLinkedQueue<>();
  final LongAdder sends = new LongAdder();
  final AtomicLong abandoned = new AtomicLong();

  FailoverLoad(ActorSystem<?> system, DatabaseSharding client, List<String> databases, boolean ids) {
    this.system = system;
    this.client = client;
    this.databases = databases;
    this.ids = ids;
    databases.forEach(db -> {
      firstCommitOfEpoch.put(db, new ConcurrentHashMap<>());
      lastAckedAt.put(db, new AtomicLong(Long.MIN_VALUE));
    });
  }

  void start(int slots) {
    for (int s = 0; s < slots; s++) {
      outstanding.increment();
      next(s, 0);
    }
  }

  /** Send no new writes; the ones in flight keep retrying until committed. */
  void stop() {
    stopping.set(true);
  }

  /** Writes sent and not yet acknowledged (or abandoned). */
  long outstanding() {
    return outstanding.sum();
  }

  private void next(int slot, long n) {
    if (stopping.get()) {
      outstanding.decrement();
      return;
    }
    String id = "r" + slot + "-" + n;
    Write w = new Write(databases.get((int) ((slot + n) % databases.size())), "w" + slot + "-" + n, id);
    send(slot, n, w, System.nanoTime(), 1);
  }

  private void send(int slot, long n, Write w, long firstSent, int attempt) {
    sends.increment();
    byte[] id = w.id().getBytes(StandardCharsets.UTF_8);
    client.write(w.db(), List.of(Mutation.put(w.key().getBytes(StandardCharsets.UTF_8), id)), LogEntries.of("orders", id),
            ids ? RequestId.of(w.id()) : null)
        .whenComplete((reply, err) -> onReply(slot, n, w, firstSent, attempt, reply));
  }

  private void onReply(int slot, long n, Write w, long firstSent, int attempt, WriteReply reply) {
    long now = System.nanoTime();
    if (reply instanceof Committed c) {
      acks.add(new Ack(w, firstSent, now, c.stamp().ownerEpoch()));
      firstCommitOfEpoch.get(w.db()).putIfAbsent(c.stamp().ownerEpoch(), now);
      lastAckedAt.get(w.db()).accumulateAndGet(now, Math::max);
      next(slot, n + 1);
      return;
    }
    String reason = !(reply instanceof WriteRefused r) ? "CONFLICTED"
        : r.refusal() instanceof Unavailable u ? u.reason().name() : ((Failed) r.refusal()).reason().name();
    refusals.computeIfAbsent(reason, k -> new LongAdder()).increment();
    boolean noReply = reply instanceof WriteRefused r && r.is(UnavailableReason.NO_REPLY);
    if (noReply) {
      noReplyAt.add(now);
    }
    if (!reply.retryable() || attempt >= 10_000) {
      abandoned.incrementAndGet();
      next(slot, n + 1);
    } else if (noReply) {
      send(slot, n, w, firstSent, attempt + 1);
    } else {
      system.scheduler().scheduleOnce(PAUSE, () -> send(slot, n, w, firstSent, attempt + 1), system.executionContext());
    }
  }
}
