package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.internal.commit.TwoLaneCommits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A commit in two halves ({@link Transaction#prepareWrite()}, then {@link
 * Transaction#writePrepared()} or {@link Transaction#abandonPrepared}), as the two-lane pipeline
 * runs it: validated and logged on one thread, written on another, holding its keys in between.
 */
class PreparedCommitTest {
  @TempDir
  Path dir;

  private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-writer"));
  private final ExecutorService other = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-other"));

  @AfterEach
  void stop() {
    writer.shutdownNow();
    other.shutdownNow();
  }

  private Database open(OccValidation validation) {
    CommitlaneSettings s = CommitlaneSettings.defaults().withOccValidation(validation);
    return Database.open(dir.resolve("db"), DatabaseOptions.defaults().withWal(false).withSettings(s));
  }

  /** Records what the hooks saw, as the transaction log's hook would act on it. */
  private static final class RecordingHook implements CommitHook {
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public void beforeWrite(PendingCommit c) {
      calls.add("before:" + c.tag() + ":" + Thread.currentThread().getName());
    }

    @Override
    public void afterWrite(PendingCommit c) {
      calls.add("after:" + c.tag() + ":" + Thread.currentThread().getName());
    }

    @Override
    public void aborted(PendingCommit c, Throwable cause) {
      calls.add("aborted:" + c.tag() + ":" + cause.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aCommitPreparedOnOneThreadIsWrittenOnAnother(OccValidation validation) throws Exception {
    try (Database db = open(validation)) {
      RecordingHook hook = new RecordingHook();
      db.addCommitHook(hook);
      Transaction t = db.begin().tag("a");
      t.put(b("k"), b("1"));
      assertTrue(TwoLaneCommits.prepareWrite(t));
      assertTrue(TwoLaneCommits.isPrepared(t));
      assertNull(db.get(b("k")), "nothing is written before the second half");
      CommitResult r = writer.submit(t::writePrepared).get(30, TimeUnit.SECONDS);
      assertTrue(r.version() > 0);
      assertFalse(TwoLaneCommits.isPrepared(t));
      assertEquals(Transaction.State.COMMITTED, t.state());
      assertEquals("1", s(db.get(b("k"))));
      assertEquals(List.of("before:a:" + Thread.currentThread().getName(), "after:a:test-writer"), hook.calls);
      // The locks went with the write (released on the writer's thread): the key takes a new commit here.
      Transaction next = db.begin();
      next.put(b("k"), b("2"));
      next.commitSync();
      assertEquals("2", s(db.get(b("k"))));
    }
  }

  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aPreparedCommitHoldsItsKeysUntilItsWriteSoALaterCommitLandsAfterIt(OccValidation validation) throws Exception {
    try (Database db = open(validation)) {
      Transaction first = db.begin();
      first.put(b("k"), b("first"));
      assertTrue(TwoLaneCommits.prepareWrite(first));
      Thread[] waiting = new Thread[1];
      Future<CommitResult> second = other.submit(() -> {
        waiting[0] = Thread.currentThread();
        Transaction t = db.begin(); // a blind write: ordered after whatever holds the key
        t.put(b("k"), b("second"));
        return t.commitSync();
      });
      awaitWaiting(waiting);
      assertFalse(second.isDone(), "the second commit waits for the prepared one's locks");
      CommitResult firstResult = writer.submit(first::writePrepared).get(30, TimeUnit.SECONDS);
      CommitResult secondResult = second.get(30, TimeUnit.SECONDS);
      assertTrue(secondResult.version() > firstResult.version());
      assertEquals("second", s(db.get(b("k"))));
    }
  }

  @Test
  void anAbandonedPreparedCommitIsUndoneByItsHooksAndReleasesItsKeys() throws Exception {
    try (Database db = open(OccValidation.PARALLEL)) {
      RecordingHook hook = new RecordingHook();
      db.addCommitHook(hook);
      Transaction t = db.begin().tag("a");
      t.put(b("k"), b("1"));
      assertTrue(TwoLaneCommits.prepareWrite(t));
      RuntimeException closed = new DatabaseClosedException(dir);
      Throwable heard = writer.submit(() -> TwoLaneCommits.abandonPrepared(t, closed)).get(30, TimeUnit.SECONDS);
      assertSame(closed, heard);
      assertEquals(Transaction.State.FAILED, t.state());
      assertEquals(2, hook.calls.size());
      assertTrue(hook.calls.get(1).startsWith("aborted:a:"), hook.calls.toString());
      assertNull(db.get(b("k")));
      Transaction next = db.begin();
      next.put(b("k"), b("2"));
      next.commitSync(); // would wait for ever if the abandoned commit kept its lock
      assertEquals("2", s(db.get(b("k"))));
      assertEquals(1, db.stats().failures());
    }
  }

  @Test
  void aConflictFoundWhilePreparingHoldsNothing() throws Exception {
    try (Database db = open(OccValidation.PARALLEL)) {
      Transaction reader = db.begin();
      assertNull(reader.get(b("k")));
      Transaction writerTxn = db.begin();
      writerTxn.put(b("k"), b("w"));
      writerTxn.commitSync();
      reader.put(b("k"), b("r"));
      assertThrows(ConflictException.class, reader::prepareWrite);
      assertFalse(TwoLaneCommits.isPrepared(reader));
      assertEquals(Transaction.State.FAILED, reader.state());
      Transaction next = db.begin();
      next.put(b("k"), b("n"));
      next.commitSync();
      assertEquals("n", s(db.get(b("k"))));
    }
  }

  @Test
  void aPreparedTransactionRefusesMoreWorkAndAnAbortLeavesItsWriteToDecide() throws Exception {
    try (Database db = open(OccValidation.PARALLEL)) {
      Transaction t = db.begin();
      t.put(b("k"), b("1"));
      assertTrue(TwoLaneCommits.prepareWrite(t));
      IllegalStateException refused = assertThrows(IllegalStateException.class, () -> t.put(b("x"), b("1")));
      assertTrue(refused.getMessage().contains("being committed"), refused.getMessage());
      assertThrows(IllegalStateException.class, t::prepareWrite);
      assertThrows(IllegalStateException.class, t::commitSync);
      t.abort();
      assertTrue(TwoLaneCommits.isPrepared(t));
      TwoLaneCommits.writePrepared(t);
      assertEquals("1", s(db.get(b("k"))));
      assertThrows(IllegalStateException.class, t::writePrepared, "a prepared commit is written once");
    }
  }

  @Test
  void aTransactionWithNothingToWriteIsCommittedByItsFirstHalf() {
    try (Database db = open(OccValidation.PARALLEL)) {
      Transaction t = db.begin();
      assertFalse(TwoLaneCommits.prepareWrite(t));
      assertEquals(Transaction.State.COMMITTED, t.state());
      assertFalse(TwoLaneCommits.isPrepared(t));
    }
  }

  /** Until the task is parked waiting (for a lock): it cannot get further by itself. */
  private static void awaitWaiting(Thread[] thread) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (thread[0] == null || thread[0].getState() != Thread.State.WAITING
        && thread[0].getState() != Thread.State.TIMED_WAITING) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the second commit never waited for the lock");
      }
      Thread.onSpinWait();
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
