package io.commitlane.actors.internal.protocol;

import io.commitlane.actors.CommitStamp;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.RequestId;
import io.commitlane.actors.RequestIdSettings;
import io.commitlane.actors.RequestIdStats;
import io.commitlane.actors.internal.pipeline.Failures;
import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.CommitOutcomeUnknownException;
import io.commitlane.storage.Database;
import io.commitlane.storage.NotDurableException;
import io.commitlane.storage.internal.commit.PendingCommit;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request ids a database applied ({@link RequestId}), so that a repeated request is answered
 * with the first one's outcome and applied once.
 *
 * <p><b>What keeps it exact.</b> (1) An id's record is written by this hook into the commit's own
 * RocksDB write (commitlane's column family), and into the commit's log record when it logs one
 * (replay restores it with the data, {@link #restore}): the database holds the record exactly
 * when it holds the write. (2) At most one attempt of an id runs at a time in a database: {@link
 * #claim} puts the attempt in {@link #inFlight} first and only then looks for a record, so a
 * repeat that arrives meanwhile joins the running attempt and gets its outcome, and a repeat that
 * arrives after it finds the record (the attempt leaves {@link #inFlight} only after its write
 * returned, having put a committed outcome in {@link #recent} first). (3) Across owners, the
 * owner lock and the shared data make the next owner see the previous one's records.
 *
 * <p>One record per id, in commitlane's column family (transaction-log markers begin with a log
 * name, never a 0 byte): {@code 0 'i' id} holds {@code [1][owner epoch][log position][recorded-at
 * ms]}. One key per write keeps the commit's extra cost to one memtable insert; {@link #purge},
 * which deletes records past {@code window}, reads them all instead (once per {@code
 * purge-interval}, on the blocking dispatcher). An id is never forgotten within its window: while
 * {@code max-ids} ids are remembered, a write with a new id is refused as overloaded instead.
 */
public final class RequestLedger implements CommitHook {
  private static final Logger LOG = LoggerFactory.getLogger(RequestLedger.class);
  private static final byte BY_ID = 'i';
  private static final byte FORMAT = 1;
  private static final int VALUE_BYTES = 25;
  /** Committed outcomes kept in memory (exact stamps for repeats while open); the disk record is the truth. */
  private static final int RECENT = 1024;
  private static final int PURGE_BATCH = 1024;
  private static final long FULL_WARNING_INTERVAL_MS = 60_000;
  private static final byte[] FIRST_KEY = {0, BY_ID};
  private static final byte[] END_KEY = {0, BY_ID + 1};

  private final Database db;
  private final RequestIdSettings settings;
  private final LongSupplier millis;
  /** The attempt of each id running now (at most one per id). */
  private final ConcurrentHashMap<RequestId, Attempt> inFlight = new ConcurrentHashMap<>();
  /** The attempt each transaction in flight belongs to, for the commit hook. */
  private final ConcurrentHashMap<Long, Binding> byTransaction = new ConcurrentHashMap<>();
  /** Guarded by itself. */
  private final Map<RequestId, Committed> recent = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<RequestId, Committed> eldest) {
      return size() > RECENT;
    }
  };
  /**
   * Ids whose last attempt was written to RocksDB but not vouched for ({@link NotDurableException},
   * {@link CommitOutcomeUnknownException}): their record may be in RocksDB's memtable only, so it
   * answers no repeat until the database is reopened (then RocksDB holds only what survived).
   */
  private final Set<RequestId> unvouched = ConcurrentHashMap.newKeySet();
  /** Records on disk: counted at open, one more per recorded commit, fewer per purge. */
  private final AtomicLong recorded = new AtomicLong();
  /** Records purged past their window, and new ids refused because {@code max-ids} were remembered, since open. */
  private final LongAdder expired = new LongAdder();
  private final LongAdder refusedFull = new LongAdder();
  /** When the last "ledger full" warning was logged (ledger clock millis), or 0. */
  private final AtomicLong lastFullWarning = new AtomicLong();

  public RequestLedger(Database db, RequestIdSettings settings, LongSupplier millis) {
    this.db = db;
    this.settings = settings;
    this.millis = millis;
  }

  public RequestLedger(Database db, RequestIdSettings settings) {
    this(db, settings, System::currentTimeMillis);
  }

  /** Count the records on disk (after replay restored what the crash left only in the logs). */
  public void countRecords() {
    long[] n = {0};
    db.internalRecords().scan(FIRST_KEY, END_KEY, (k, v) -> {
      n[0]++;
      return true;
    });
    recorded.set(n[0]);
  }

  /** Records on disk (an estimate between purges). */
  public long recordCount() {
    return recorded.get();
  }

  // ---- attempts -------------------------------------------------------------------------------

  /** Where a write's one reply goes: its requester, or (with a request id) its attempt. */
  public interface Answer {
    void tell(WriteReply reply);
  }

  /** One attempt of a request id: the requester and the repeats that joined it. */
  public final class Attempt implements Answer {
    final RequestId id;
    /** The id's key in commitlane's column family. */
    final byte[] key;
    final long epoch;
    private final long correlation;
    private final Answer replyTo;
    /** Guarded by this. */
    private List<Object[]> joined;
    /** Guarded by this; set once. */
    private WriteReply outcome;

    private Attempt(RequestId id, long epoch, long correlation, Answer replyTo) {
      this.id = id;
      this.key = idKey(id.bytes());
      this.epoch = epoch;
      this.correlation = correlation;
      this.replyTo = replyTo;
    }

    /** A repeat waits for this attempt's outcome; false if it is already known (look again). */
    private synchronized boolean join(long correlation, Answer replyTo) {
      if (outcome != null) {
        return false;
      }
      if (joined == null) {
        joined = new ArrayList<>(1);
      }
      joined.add(new Object[] {correlation, replyTo});
      return true;
    }

    /**
     * The commit of {@code txn}, this attempt's, completed: it is unbound, and a failure that left
     * its record unvouched is remembered ({@link #failed}). Runs before the outcome is told.
     */
    public void settled(long txn, Throwable failure) {
      unbind(txn);
      if (failure != null) {
        failed(this, Failures.unwrap(failure));
      }
    }

    /** The attempt's one outcome: kept if it committed, then told to the requester and every repeat that joined. */
    @Override
    public void tell(WriteReply reply) {
      if (reply instanceof Committed c) {
        synchronized (recent) {
          recent.put(id, c);
        }
      }
      inFlight.remove(id, this); // after the committed outcome is findable: a repeat that misses this attempt finds it
      List<Object[]> waiting;
      synchronized (this) {
        if (outcome != null) {
          return; // one outcome per attempt
        }
        outcome = reply;
        waiting = joined;
        joined = null;
      }
      replyTo.tell(reply);
      if (waiting != null) {
        for (Object[] w : waiting) {
          ((Answer) w[1]).tell(withCorrelation(reply, (Long) w[0]));
        }
      }
    }
  }

  /**
   * The attempt to run for request {@code id}, or null when the request needs nothing more: it
   * was answered from a record of an earlier attempt, or it joined the attempt running now and
   * gets its outcome when it completes.
   */
  public Attempt claim(RequestId id, long epoch, long correlation, Answer replyTo) {
    Attempt mine = new Attempt(id, epoch, correlation, replyTo);
    while (true) {
      Attempt running = inFlight.putIfAbsent(id, mine);
      if (running == null) {
        break;
      }
      if (running.join(correlation, replyTo)) {
        if (LOG.isDebugEnabled()) {
          LOG.debug("request {} joins its attempt in flight in {}", id, db.path());
        }
        return null;
      }
      // It completed meanwhile and left: its record, if it wrote, is findable now.
    }
    if (unvouched.contains(id)) {
      mine.tell(notVouched(id, correlation));
      return null;
    }
    Committed known;
    try {
      known = find(id, mine.key, correlation);
    } catch (RuntimeException e) {
      inFlight.remove(id, mine);
      throw e;
    }
    if (known != null) {
      mine.tell(known); // also answers repeats that joined this look-up
      return null;
    }
    if (recorded.get() + inFlight.size() > settings.maxIds()) {
      mine.tell(full(id, correlation)); // this attempt counts in inFlight: it would be one too many
      return null;
    }
    return mine;
  }

  /** The committed outcome recorded for {@code id}, as a reply to {@code correlation}; null if none. */
  private Committed find(RequestId id, byte[] key, long correlation) {
    Committed c;
    synchronized (recent) {
      c = recent.get(id);
    }
    if (c != null) {
      return (Committed) withCorrelation(c, correlation);
    }
    byte[] v = db.internalRecords().get(key);
    if (v == null || v.length < VALUE_BYTES || v[0] != FORMAT) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(v, 1, 24);
    long epoch = b.getLong();
    long position = b.getLong();
    return new Committed(correlation, new CommitStamp(epoch, 0), position);
  }

  /**
   * {@code attempt}'s commit failed with {@code cause}; call before telling its outcome, so no
   * repeat can find the id's record in between. A commit written but not vouched for leaves its
   * record in RocksDB, perhaps only in memory: a repeat answered from it could be told Committed
   * for a write a crash then loses, so the id answers no repeat until the database is reopened.
   */
  void failed(Attempt attempt, Throwable cause) {
    if (cause instanceof NotDurableException || cause instanceof CommitOutcomeUnknownException) {
      unvouched.add(attempt.id);
    }
  }

  private static WriteRefused notVouched(RequestId id, long correlation) {
    return new WriteRefused(correlation, new Failed(FailureReason.STORAGE, "request " + id + " was written by an earlier attempt that"
        + " could not be made durable, so it is neither answered Committed nor applied again while this database"
        + " stays open: reopen the database (free disk space first), then send it again; it is then answered from"
        + " what the database kept, or applied if the write was lost", false));
  }

  /** {@code txn}'s commit belongs to {@code attempt}: its write records the id. Call before admitting it. */
  public void bind(long txn, Attempt attempt) {
    byTransaction.put(txn, new Binding(attempt));
  }

  /** The commit of {@code txn} completed (either way). */
  public void unbind(long txn) {
    byTransaction.remove(txn);
  }

  /** A transaction's attempt, and the time its record was taken (once, by whichever step asks first). */
  private final class Binding {
    final Attempt attempt;
    long recordedAt;

    Binding(Attempt attempt) {
      this.attempt = attempt;
    }

    long recordedAt() {
      if (recordedAt == 0) {
        recordedAt = Math.max(1, millis.getAsLong());
      }
      return recordedAt;
    }
  }

  // ---- the record, in the commit ---------------------------------------------------------------

  /**
   * For the transaction-log hook, before it encodes the commit's record: the request record to
   * carry in it ({@code key length, key, epoch, recorded-at}), or null when the commit has no id.
   * Runs on the committing thread, under the commit's locks.
   */
  public byte[] logged(PendingCommit c) {
    if (byTransaction.isEmpty()) {
      return null;
    }
    Binding b = byTransaction.get(c.transactionId());
    if (b == null) {
      return null;
    }
    byte[] key = b.attempt.key;
    return ByteBuffer.allocate(4 + key.length + 16).putInt(key.length).put(key).putLong(b.attempt.epoch).putLong(b.recordedAt()).array();
  }

  /** Adds the id's record to the commit's write (after the log hook: the record's position is known). */
  @Override
  public void beforeWrite(PendingCommit c) {
    if (byTransaction.isEmpty()) {
      return;
    }
    Binding b = byTransaction.get(c.transactionId());
    if (b == null) {
      return;
    }
    long position = c.logRecord() == null ? -1 : c.logRecord().position();
    c.addInternalWrite(b.attempt.key, value(b.attempt.epoch, position, b.recordedAt()));
  }

  @Override
  public void afterWrite(PendingCommit c) {
    if (!byTransaction.isEmpty() && byTransaction.containsKey(c.transactionId())) {
      recorded.incrementAndGet();
    }
  }

  /** Replay applied a logged commit whose record carried {@code logged} ({@link #logged}): restore the id's record. */
  public void restore(ByteBuffer logged, long position) {
    ByteBuffer b = logged.duplicate();
    byte[] key = new byte[b.getInt()];
    b.get(key);
    long epoch = b.getLong();
    long at = b.getLong();
    db.internalRecords().write(List.of(key), List.of(value(epoch, position, at)));
  }

  // ---- purge ----------------------------------------------------------------------------------

  /**
   * Delete the records older than the window; never one within it (the window is the promise:
   * {@code max-ids} bounds the records by refusing new ids, see {@link #claim}). Reads every
   * record; runs on the blocking dispatcher, never on a log's writer. A record no request can be
   * writing meanwhile: an id with a record is never applied again, so nothing rewrites the key
   * between this read and the delete. Returns how many records went.
   */
  public int purge() {
    if (db.isReadOnly()) {
      return 0; // nothing is recorded through a read-only handle, and nothing may be deleted
    }
    long cutoff = millis.getAsLong() - settings.window().toMillis();
    List<byte[]> past = new ArrayList<>();
    long[] within = {0};
    db.internalRecords().scan(FIRST_KEY, END_KEY, (k, v) -> {
      long at = v.length >= VALUE_BYTES ? ByteBuffer.wrap(v, 17, 8).getLong() : 0;
      if (at < cutoff) {
        past.add(k);
      } else {
        within[0]++;
      }
      return true;
    });
    for (int from = 0; from < past.size(); from += PURGE_BATCH) {
      List<byte[]> keys = past.subList(from, Math.min(past.size(), from + PURGE_BATCH));
      db.internalRecords().write(keys, Arrays.asList(new byte[keys.size()][]));
    }
    synchronized (recent) {
      for (byte[] k : past) {
        recent.remove(new RequestId(new String(k, 2, k.length - 2, StandardCharsets.UTF_8)));
      }
    }
    recorded.set(within[0]);
    expired.add(past.size());
    if (!past.isEmpty()) {
      LOG.debug("purged {} request id record(s) of {} past their window", past.size(), db.path());
    }
    return past.size();
  }

  /** What the ledger remembers, forgot and refused. */
  public RequestIdStats stats() {
    return new RequestIdStats(recorded.get(), settings.maxIds(), settings.window(), expired.sum(), refusedFull.sum());
  }

  /**
   * The ledger holds {@code max-ids} ids: forgetting one inside its window would let its repeat
   * apply twice, so the new id is refused instead, retryably; warned at most once a minute.
   */
  private WriteRefused full(RequestId id, long correlation) {
    refusedFull.increment();
    long now = millis.getAsLong();
    long last = lastFullWarning.get();
    if ((last == 0 || now - last >= FULL_WARNING_INTERVAL_MS) && lastFullWarning.compareAndSet(last, now)) {
      LOG.warn("{} remembers {} request ids (max-ids {}) and forgets none within its {} s window: writes with a new"
          + " request id are refused as overloaded until older ids are purged ({} refused since open); raise"
          + " commitlane.request-ids.max-ids to at least your rate of such writes times the window, or shorten the"
          + " window", db.path(), recorded.get(), settings.maxIds(), settings.window().toSeconds(), refusedFull.sum());
    }
    return new WriteRefused(correlation, new Failed(FailureReason.OVERLOADED, "request " + id + " was not applied: the database"
        + " remembers " + settings.maxIds() + " request ids (commitlane.request-ids.max-ids) and forgets none"
        + " within its " + settings.window().toSeconds() + " s window; nothing was written, send it again later", true));
  }

  // ---- encoding -------------------------------------------------------------------------------

  private static byte[] value(long epoch, long position, long at) {
    return ByteBuffer.allocate(VALUE_BYTES).put(FORMAT).putLong(epoch).putLong(position).putLong(at).array();
  }

  private static byte[] idKey(byte[] id) {
    byte[] k = new byte[2 + id.length];
    k[1] = BY_ID;
    System.arraycopy(id, 0, k, 2, id.length);
    return k;
  }

  /** {@code reply} as the answer to another request of the same id. */
  static WriteReply withCorrelation(WriteReply reply, long correlation) {
    if (reply instanceof Committed c) {
      return new Committed(correlation, c.stamp(), c.logPosition());
    }
    if (reply instanceof Conflicted c) {
      return new Conflicted(correlation, c.cause(), c.actual(), c.attempts());
    }
    return new WriteRefused(correlation, ((WriteRefused) reply).refusal());
  }

  @Override
  public String toString() {
    return "RequestLedger[" + db.path() + ", " + recorded.get() + " records, " + inFlight.size() + " in flight]";
  }
}
