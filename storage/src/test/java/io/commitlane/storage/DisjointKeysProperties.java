package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Transactions whose key sets are pairwise disjoint never conflict, whatever the bucket count.
 * Four threads commit random transactions (blind writes, read-modify-writes, untracked reads,
 * removals) and non-transactional batches over keys of their own, with 16 lock buckets, so every
 * pair of threads shares buckets all the time. Every try runs its steps under both validation
 * policies and both blind-write settings, committed one by one ({@code commitSync}) and in merged
 * write groups whose members are disjoint too: 4 tries x 8 settings x 4 threads x 800 steps, at
 * least 102,400 commits. No commit may conflict, and each thread's keys must end as its own model
 * says.
 *
 * <p>The assertion holds for every interleaving, so the threads run free. Each thread cycles over
 * 64 keys: the record of recent writes holds at most 256 keys here and never has to forget one.
 */
class DisjointKeysProperties {
  private static final int THREADS = 4;
  private static final int STEPS_PER_THREAD = 800;
  /** Keys one transaction picks from; a group member m uses the m-th such range of its thread's keys. */
  private static final int KEYS_PER_MEMBER = 8;
  private static final int MAX_MEMBERS = 8;
  private static final int KEYS_PER_THREAD = KEYS_PER_MEMBER * MAX_MEMBERS;
  private static Path root;
  private static int run;

  enum Kind { PUT, READ_MODIFY_WRITE, UNTRACKED_READ, REMOVE }

  record Op(Kind kind, int key) {}

  /** One step of a thread: a transaction, or (plain) a non-transactional batch of its puts and removals. */
  record Shape(List<Op> ops, boolean plain, int members) {}

  @BeforeContainer
  static void openRoot() throws IOException {
    root = Files.createTempDirectory("commitlane-disjoint");
  }

  @AfterContainer
  static void deleteRoot() throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Property(tries = 4)
  void disjointTransactionsNeverConflict(@ForAll("shapes") List<Shape> shapes) throws Exception {
    for (OccValidation policy : OccValidation.values()) {
      for (BlindWrites blind : BlindWrites.values()) {
        for (boolean groups : new boolean[] {false, true}) {
          runThreads(shapes, policy, blind, groups);
        }
      }
    }
  }

  private void runThreads(List<Shape> shapes, OccValidation policy, BlindWrites blind, boolean groups) throws Exception {
    String config = policy.settingName() + ", blind writes " + blind.settingName() + (groups ? ", merged groups" : ", commitSync");
    CommitlaneSettings settings = CommitlaneSettings.defaults().withOccValidation(policy).withOccBlindWrites(blind).withOccLockBuckets(16);
    try (Database db = Database.open(root.resolve("db" + (run++)), DatabaseOptions.defaults().withWal(false).withSettings(settings))) {
      CyclicBarrier start = new CyclicBarrier(THREADS);
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      List<byte[][]> models = new ArrayList<>();
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        byte[][] model = new byte[KEYS_PER_THREAD][];
        models.add(model);
        ThreadKeys keys = new ThreadKeys(db, t, model);
        Thread w = new Thread(() -> {
          try {
            start.await();
            for (int step = 0; step < STEPS_PER_THREAD; step++) {
              Shape s = shapes.get((step + keys.thread * 7) % shapes.size());
              int range = step % MAX_MEMBERS;
              if (s.plain()) {
                keys.writePlain(s, range, step);
              } else if (groups && s.members() > 1) {
                keys.commitGroup(s, step);
              } else {
                keys.commitAlone(s, range, step);
              }
            }
          } catch (Throwable e) {
            errors.add(e);
          }
        }, "disjoint-" + t);
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
      assertEquals(List.of(), errors, config);
      StorageStats stats = db.stats();
      assertEquals(0, stats.conflicts(), config + ": conflicts");
      assertEquals(0, stats.groupConflicts(), config + ": conflicts inside merged groups");
      for (int t = 0; t < THREADS; t++) {
        for (int k = 0; k < KEYS_PER_THREAD; k++) {
          assertArrayEquals(models.get(t)[k], db.get(ThreadKeys.key(t, k)), config + ": thread " + t + " key " + k);
        }
      }
    }
  }

  /** One thread's keys, its model of their values (it is their only writer), and its steps. */
  private static final class ThreadKeys {
    final Database db;
    final int thread;
    final byte[][] model;

    ThreadKeys(Database db, int thread, byte[][] model) {
      this.db = db;
      this.thread = thread;
      this.model = model;
    }

    static byte[] key(int thread, int k) {
      return Bytes.of("t" + thread + "/k" + k);
    }

    void commitAlone(Shape s, int range, int step) {
      byte[][] local = model.clone();
      Transaction txn = build(s, range, step, local);
      txn.commitSync(); // a ConflictException fails the property
      System.arraycopy(local, 0, model, 0, model.length);
    }

    /** Members on disjoint key ranges of this thread, built one after another, committed as one group. */
    void commitGroup(Shape s, int step) {
      List<Transaction> members = new ArrayList<>();
      byte[][] local = model.clone();
      for (int m = 0; m < s.members(); m++) {
        members.add(build(s, m, step, local));
      }
      GroupResult r = db.commitGroup(members);
      for (int m = 0; m < members.size(); m++) {
        if (!r.isCommitted(m)) {
          throw new AssertionError("group member " + m + " of thread " + thread + " failed", r.failure(m));
        }
      }
      System.arraycopy(local, 0, model, 0, model.length);
    }

    void writePlain(Shape s, int range, int step) {
      Batch batch = Batch.create();
      int writes = 0;
      for (Op op : s.ops()) {
        int k = range * KEYS_PER_MEMBER + op.key();
        if (op.kind() == Kind.REMOVE) {
          batch.remove(db.defaultStore(), key(thread, k));
          model[k] = null;
          writes++;
        } else if (op.kind() != Kind.UNTRACKED_READ) {
          byte[] v = Bytes.ofLong(step * 31L + k);
          batch.put(db.defaultStore(), key(thread, k), v);
          model[k] = v;
          writes++;
        }
      }
      if (writes > 0) {
        db.write(batch);
      }
    }

    /** A transaction over the keys of {@code range}, checking every read against {@code local} and updating it. */
    private Transaction build(Shape s, int range, int step, byte[][] local) {
      Transaction txn = db.begin();
      for (Op op : s.ops()) {
        int k = range * KEYS_PER_MEMBER + op.key();
        byte[] key = key(thread, k);
        switch (op.kind()) {
          case PUT -> {
            local[k] = Bytes.ofLong(step * 31L + k);
            txn.put(key, local[k]);
          }
          case READ_MODIFY_WRITE -> {
            byte[] seen = txn.get(key);
            check(local[k], seen, k);
            local[k] = Bytes.ofLong(Bytes.toLong(seen) + 1);
            txn.put(key, local[k]);
          }
          case UNTRACKED_READ -> check(local[k], txn.getUntracked(key), k);
          case REMOVE -> {
            local[k] = null;
            txn.remove(key);
          }
        }
      }
      return txn;
    }

    private void check(byte[] expected, byte[] seen, int k) {
      if (!Arrays.equals(expected, seen)) {
        throw new AssertionError("thread " + thread + " read key " + k + " as " + Arrays.toString(seen)
            + ", its own last write was " + Arrays.toString(expected));
      }
    }
  }

  @Provide
  Arbitrary<List<Shape>> shapes() {
    Arbitrary<Op> op = Combinators.combine(Arbitraries.of(Kind.values()), Arbitraries.integers().between(0, KEYS_PER_MEMBER - 1))
        .as(Op::new);
    Arbitrary<Shape> shape = Combinators.combine(op.list().ofMinSize(1).ofMaxSize(6),
        Arbitraries.integers().between(0, 9).map(n -> n == 0), // one step in ten is a non-transactional batch
        Arbitraries.integers().between(1, MAX_MEMBERS))
        .as(Shape::new);
    return shape.list().ofMinSize(1).ofMaxSize(24);
  }
}
