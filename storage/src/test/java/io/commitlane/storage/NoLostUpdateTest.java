package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * N threads increment one counter through read-modify-write transactions, under both policies and
 * both blind-write settings, with 16 lock buckets. Whatever the interleaving, the final value must
 * equal the number of successful commits: validation must catch every overlapping read. The schedule is left to the threads on purpose (the assertion
 * holds for every schedule); conflicts make the test exercise the retry path too.
 */
class NoLostUpdateTest {
  @TempDir
  Path dir;

  static Stream<Arguments> settings() {
    return Stream.of(OccValidation.values())
        .flatMap(policy -> Stream.of(BlindWrites.values()).map(blind -> Arguments.of(policy, blind)));
  }

  @ParameterizedTest
  @MethodSource("settings")
  void concurrentIncrementsAreNeverLost(OccValidation policy, BlindWrites blindWrites) throws Exception {
    CommitlaneSettings s = CommitlaneSettings.defaults().withOccValidation(policy).withOccBlindWrites(blindWrites).withOccLockBuckets(16);
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false).withSettings(s))) {
      int threads = 4;
      int perThread = 2_000;
      AtomicLong committed = new AtomicLong();
      AtomicLong gaveUp = new AtomicLong();
      CyclicBarrier start = new CyclicBarrier(threads);
      List<Thread> workers = new ArrayList<>();
      List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
      for (int w = 0; w < threads; w++) {
        boolean nonTransactionalToo = w == 0;
        Thread t = new Thread(() -> {
          try {
            start.await();
            for (int i = 0; i < perThread; i++) {
              try {
                db.transact(txn -> {
                  long n = Bytes.toLong(txn.get(of("counter")));
                  txn.put(of("counter"), Bytes.ofLong(n + 1));
                  return null;
                });
                committed.incrementAndGet();
              } catch (ConflictException e) {
                gaveUp.incrementAndGet();
              }
              if (nonTransactionalToo && i % 100 == 0) {
                db.put(of("noise" + i), of("x")); // unrelated writes through the same buckets
              }
            }
          } catch (Throwable e) {
            errors.add(e);
          }
        });
        workers.add(t);
        t.start();
      }
      for (Thread t : workers) {
        t.join();
      }
      assertEquals(List.of(), errors);
      assertEquals(committed.get(), Bytes.toLong(db.get(of("counter"))));
      assertEquals(threads * perThread, committed.get() + gaveUp.get());
      assertEquals(committed.get(), db.stats().commits());
    }
  }
}
