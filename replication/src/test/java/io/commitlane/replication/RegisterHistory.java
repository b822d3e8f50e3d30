package io.commitlane.replication;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A linearizability check of one register under faults: one writer sets {@code register} to 1,
 * 2, 3, ... (each with a request id, resent until acknowledged), and readers read it
 * linearizably. Since the written values only grow, a history is linearizable when each read
 * returns at least the last value acknowledged before the read started and at most the last
 * value whose write had started before the read ended.
 */
final class RegisterHistory implements AutoCloseable {
  private static final byte[] KEY = "register".getBytes(UTF_8);

  /** A write of {@code value}: when its first attempt started and when it was acknowledged (0 if never). */
  record Write(long value, long startNanos, long ackNanos) {}

  /** A read: its interval and what it returned (0 for absent). */
  record Read(long startNanos, long endNanos, long value) {}

  private final ReplicatedDatabase client;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Write> writes = new ArrayList<>();
  private final List<Read> reads = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();

  RegisterHistory(ReplicatedDatabase client, int readers) {
    this.client = client;
    threads.add(new Thread(this::write, "register-writer"));
    for (int r = 0; r < readers; r++) {
      threads.add(new Thread(this::read, "register-reader-" + r));
    }
    threads.forEach(t -> {
      t.setDaemon(true);
      t.start();
    });
  }

  private void write() {
    for (long value = 1; running.get(); value++) {
      long start = System.nanoTime();
      long ack = 0;
      byte[] id = ("register/" + value).getBytes(UTF_8);
      while (running.get() && ack == 0) {
        try {
          client.begin().put(KEY, Long.toString(value).getBytes(UTF_8)).commit(id).toCompletableFuture().get(60, TimeUnit.SECONDS);
          ack = System.nanoTime();
        } catch (Exception e) {
          CommitWorkload.pause(); // no leader yet: resend with the same id
        }
      }
      synchronized (writes) {
        writes.add(new Write(value, start, ack));
      }
    }
  }

  private void read() {
    while (running.get()) {
      long start = System.nanoTime();
      try {
        byte[] v = client.get(KEY).toCompletableFuture().get(60, TimeUnit.SECONDS);
        long end = System.nanoTime();
        synchronized (reads) {
          reads.add(new Read(start, end, v == null ? 0 : Long.parseLong(new String(v, UTF_8))));
        }
      } catch (Exception e) {
        CommitWorkload.pause(); // a read that failed returned nothing: no constraint
      }
    }
  }

  long acknowledgedWrites() {
    synchronized (writes) {
      return writes.stream().filter(w -> w.ackNanos() != 0).count();
    }
  }

  int reads() {
    synchronized (reads) {
      return reads.size();
    }
  }

  /** Every read that broke linearizability, described; empty when the history is linearizable. */
  List<String> violations() {
    List<Write> ws;
    List<Read> rs;
    synchronized (writes) {
      ws = new ArrayList<>(writes);
    }
    synchronized (reads) {
      rs = new ArrayList<>(reads);
    }
    List<String> found = new ArrayList<>();
    for (Read r : rs) {
      long mustSee = 0;
      long maySee = 0;
      for (Write w : ws) {
        if (w.ackNanos() != 0 && w.ackNanos() < r.startNanos()) {
          mustSee = Math.max(mustSee, w.value());
        }
        if (w.startNanos() < r.endNanos()) {
          maySee = Math.max(maySee, w.value());
        }
      }
      // The write in progress when the history ended has no entry yet: it may be seen too.
      maySee = Math.max(maySee, ws.isEmpty() ? 1 : ws.get(ws.size() - 1).value() + 1);
      if (r.value() < mustSee) {
        found.add("stale read: " + r + " returned " + r.value() + " after write " + mustSee + " was acknowledged");
      } else if (r.value() > maySee) {
        found.add("read from the future: " + r + " returned " + r.value() + ", no write beyond " + maySee + " had started");
      }
    }
    return found;
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(120_000);
    }
  }
}
