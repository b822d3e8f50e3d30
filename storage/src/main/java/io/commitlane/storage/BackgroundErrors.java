package io.commitlane.storage;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.BackgroundErrorReason;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns RocksDB's background-error callbacks into the database's {@link DatabaseHealth}: a full
 * disk makes it DEGRADED (RocksDB resumes on its own once there is room), any other error FAILED,
 * a finished recovery OK again. Each transition is logged once (WARN, INFO for the way back) and recorded as a JFR
 * event. Registered at open because RocksDB takes listeners only then. The callbacks run on
 * RocksDB's background threads, so nothing here calls back into the database.
 *
 * <p>rocksdbjni 11.8.1 drops the callbacks of errors its enum cannot name (a failed flush with the
 * WAL off, a failed manifest write: it throws in its proxy and the callback never runs), so RocksDB's
 * count of background errors ({@code rocksdb.background-errors}) is the second source: read when a
 * write or flush fails and when someone asks for the health, never on a successful commit. RocksDB
 * itself refuses a write while it is stopped; only then is the failure turned into a
 * {@link BackgroundErrorException}.
 */
final class BackgroundErrors extends AbstractEventListener {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundErrors.class);
  private static final HealthChangedEvent TYPE = new HealthChangedEvent();

  private final String path;
  private final Clock clock;
  private volatile DatabaseHealth current;
  /** Set once the database is open; null before (nothing to count yet). */
  private volatile RocksDB db;
  /** Guarded by this: RocksDB's background-error count already accounted for (seen, or recovered from). */
  private long accountedErrors;
  /** Guarded by this: a recovery was reported; the count is re-based at the next look at it. */
  private boolean rebase;
  /** Completed, and replaced, each time the database is OK again; guarded by this. */
  private CompletableFuture<DatabaseHealth> recovered = new CompletableFuture<>();

  BackgroundErrors(String path, Clock clock) {
    super(EnabledEventCallback.ON_BACKGROUND_ERROR,
        EnabledEventCallback.ON_ERROR_RECOVERY_COMPLETED);
    this.path = path;
    this.clock = clock;
    this.current = DatabaseHealth.ok(clock.instant());
  }

  void attach(RocksDB db) {
    this.db = db;
  }

  /** The last known health: one volatile read. */
  DatabaseHealth current() {
    return current;
  }

  /**
   * Looks at RocksDB's background-error count (takes RocksDB's mutex: not for the commit path), so
   * an error whose callback rocksdbjni dropped is seen too; the failure that prompted the look, if
   * any, says what went wrong.
   */
  DatabaseHealth refresh(RocksDBException failure) {
    RocksDB rocks = db;
    if (rocks == null) {
      return current;
    }
    long count;
    try {
      count = rocks.getLongProperty("rocksdb.background-errors");
    } catch (RocksDBException e) {
      return current;
    }
    boolean unseen;
    synchronized (this) {
      if (rebase) {
        // Recovered since the last look: RocksDB's count so far is behind us, except that a write it refused
        // with an I/O error since then is a new background error.
        accountedErrors = failure != null && isIoFailure(failure) ? count - 1 : count;
        rebase = false;
      }
      unseen = count > accountedErrors;
      accountedErrors = count;
    }
    if (unseen && current.isOk()) {
      Status status = failure == null || failure.getStatus() == null
          ? new Status(Status.Code.IOError, Status.SubCode.None, "see the RocksDB LOG file") : failure.getStatus();
      change(stateOf(status), null, status);
    }
    return current;
  }

  /** Completes with the health once the database is OK again (at once when it is). */
  synchronized CompletableFuture<DatabaseHealth> whenOk() {
    return current.isOk() ? CompletableFuture.completedFuture(current) : recovered;
  }

  @Override
  public void onBackgroundError(BackgroundErrorReason reason, Status status) {
    if (status != null && status.getCode() != Status.Code.Ok) {
      change(stateOf(status), reason, status);
    }
  }

  /**
   * A full disk is what RocksDB retries on its own: its file manager polls the free space and
   * resumes once there is room for a memtable. Anything else needs a hand.
   */
  private static DatabaseHealth.State stateOf(Status status) {
    Status.SubCode sub = status.getSubCode();
    return sub == Status.SubCode.NoSpace ? DatabaseHealth.State.DEGRADED : DatabaseHealth.State.FAILED;
  }

  @Override
  public void onErrorRecoveryCompleted(Status oldBackgroundError) {
    synchronized (this) {
      rebase = true; // RocksDB's count never goes down: what it counted so far is recovered from
    }
    change(DatabaseHealth.State.OK, null, null);
  }

  private void change(DatabaseHealth.State state, BackgroundErrorReason reason, Status status) {
    DatabaseHealth previous;
    DatabaseHealth next = state == DatabaseHealth.State.OK
        ? DatabaseHealth.ok(clock.instant())
        : new DatabaseHealth(state, reason == null ? "BACKGROUND" : reason.name(), describe(status), clock.instant());
    CompletableFuture<DatabaseHealth> done = null;
    synchronized (this) {
      previous = current;
      if (previous.state() == state && previous.reason().equals(next.reason()) && previous.error().equals(next.error())) {
        return; // RocksDB repeats itself (a retry that failed the same way): one transition, one log line
      }
      current = next;
      if (next.isOk()) {
        done = recovered;
        recovered = new CompletableFuture<>();
      }
    }
    if (next.isOk()) {
      LOG.info("{}: RocksDB recovered from the background error {}; writes are accepted again", path, previous);
    } else if (next.state() == DatabaseHealth.State.DEGRADED) {
      LOG.warn("{}: {}; RocksDB is recovering on its own (free disk space if it is full)", path, next);
    } else {
      LOG.warn("{}: {}; writes may be refused until the cause is fixed and the database is reopened (close every handle)",
          path, next);
    }
    if (TYPE.isEnabled()) {
      HealthChangedEvent e = new HealthChangedEvent();
      e.database = path;
      e.state = next.state().name();
      e.previous = previous.state().name();
      e.reason = next.reason();
      e.error = next.error();
      e.commit();
    }
    if (done != null) {
      done.complete(next); // only the thread that made the change completes, outside the lock
    }
  }

  private static boolean isIoFailure(RocksDBException e) {
    Status s = e.getStatus();
    return s != null && (s.getCode() == Status.Code.IOError || s.getCode() == Status.Code.Corruption);
  }

  private static String describe(Status status) {
    if (status == null) {
      return "";
    }
    String sub = status.getSubCode() == null || status.getSubCode() == Status.SubCode.None ? "" : "(" + status.getSubCode() + ")";
    return status.getCode() + sub + (status.getState() == null ? "" : ": " + status.getState());
  }

  /** A refused or failed write: typed as a background error while RocksDB reports one, else a plain storage failure. */
  RuntimeException writeFailed(RocksDBException e) {
    DatabaseHealth health = current.isOk() ? refresh(e) : current;
    return health.isOk() ? new StorageException("write failed in " + path, e) : new BackgroundErrorException(path, health, e);
  }
}
