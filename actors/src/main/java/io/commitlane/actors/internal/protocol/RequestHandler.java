package io.commitlane.actors.internal.protocol;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import io.commitlane.actors.ChangeRecord;
import io.commitlane.actors.CommitStamp;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseActor;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.BackedUp;
import io.commitlane.actors.DatabaseProtocol.Backup;
import io.commitlane.actors.DatabaseProtocol.Checkpoint;
import io.commitlane.actors.DatabaseProtocol.CheckpointTaken;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.ConflictCause;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.CreateStore;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.DropStore;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.FeedOpened;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.GetStats;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.OpenChangeFeed;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.StoreCreated;
import io.commitlane.actors.DatabaseProtocol.StoreDropped;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.actors.internal.pipeline.CommitRequest;
import io.commitlane.actors.internal.pipeline.Pipeline;
import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.DatabaseHealth;
import io.commitlane.storage.RocksDbStats;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.LogClosedException;
import io.commitlane.txlog.ReadRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.SourceRef;
import org.apache.pekko.stream.javadsl.StreamRefs;

/**
 * Serves {@link DatabaseProtocol} requests against an open database handle, on the thread of the
 * actor that received them: what a local {@link DatabaseActor} and a sharded database entity both
 * run, so they answer alike. Transactions are built and reads served on the calling thread;
 * commits are admitted into the database's queue (no further hop) and a write's reply is told by
 * the thread that completed it; backups and checkpoints are handed to the lifecycle dispatcher.
 * Not thread-safe: one actor owns each handler.
 */
@InternalApi
public final class RequestHandler {
  private final CommitlaneDatabase db;
  private final String database;
  private final String owner;
  private final long ownerEpoch;
  private final int conditionalRetries;
  private final Supplier<Materializer> materializer;
  private final Refusal closed;
  private final RequestLedger ledger;
  private final ReadRequests reads;
  private final ReplyLimit replies;

  /**
   * @param db the handle requests run against
   * @param database the database's name in {@link DatabaseStats}
   * @param owner the address of the actor system serving it, in {@link DatabaseStats}
   * @param ownerEpoch the epoch in every {@link CommitStamp} (0 for a local database)
   * @param conditionalRetries how often a {@link ConditionalWrite} whose validation conflicted is
   *     run again while its expectations hold (0 for a local database)
   * @param materializer runs change feeds (called on the first {@link OpenChangeFeed})
   * @param closed why a request is refused when the database is closed
   * @param replies what a reply can carry to its recipient: a reply to a caller on another node
   *     must fit the remote transport's frame
   */
  public RequestHandler(CommitlaneDatabase db, String database, String owner, long ownerEpoch, int conditionalRetries,
      Supplier<Materializer> materializer, Refusal closed, ReplyLimit replies) {
    this.replies = Objects.requireNonNull(replies, "replies");
    this.reads = new ReadRequests(db, replies);
    this.db = Objects.requireNonNull(db, "db");
    this.database = database;
    this.owner = owner;
    this.ownerEpoch = ownerEpoch;
    this.conditionalRetries = conditionalRetries;
    this.materializer = Objects.requireNonNull(materializer, "materializer");
    this.closed = Objects.requireNonNull(closed, "closed");
    this.ledger = db.pipeline().requests();
  }

  /** Why a local database refuses a request it cannot serve because it is closed. */
  public static Failed closedRefusal(java.nio.file.Path path) {
    return new Failed(FailureReason.DATABASE_CLOSED, "database " + path
        + " is closed; nothing was written. Open it again and send the request to its new reference", false);
  }

  /** Serve {@code r}: exactly one reply goes to its {@code replyTo}, now or when its commit completes. */
  public void handle(Request r) {
    try {
      if (r instanceof Write w) {
        onWrite(w);
      } else if (r instanceof ConditionalWrite c) {
        onConditionalWrite(c);
      } else if (r instanceof Get g) {
        reads.onGet(g);
      } else if (r instanceof MultiGet g) {
        reads.onMultiGet(g);
      } else if (r instanceof Scan s) {
        reads.onScan(s);
      } else if (r instanceof Count c) {
        reads.onCount(c);
      } else if (r instanceof CreateStore c) {
        onCreateStore(c);
      } else if (r instanceof DropStore d) {
        onDropStore(d);
      } else if (r instanceof GetStats g) {
        onGetStats(g);
      } else if (r instanceof OpenChangeFeed f) {
        onOpenChangeFeed(f);
      } else if (r instanceof Backup b) {
        onBackup(b);
      } else if (r instanceof Checkpoint c) {
        onCheckpoint(c);
      } else {
        // Request is sealed, but Java 17 cannot switch over it exhaustively: a request type added
        // without a branch here is still answered (RequestDispatchTest checks every type has one).
        r.answer(new Failed(FailureReason.INVALID_REQUEST, "this database does not serve "
            + r.getClass().getSimpleName() + " requests", false));
      }
    } catch (RuntimeException e) {
      // Whatever failed before a commit was admitted: the request still gets its one reply.
      r.answer(Refusals.of(e, closed));
    }
  }

  private void onWrite(Write w) {
    RequestLedger.Answer to = answerFor(w.requestId(), w.correlation(), w.replyTo());
    if (to == null) {
      return; // answered from the id's record, or joined the attempt of the id running now
    }
    try {
      Transaction txn = db.begin();
      apply(txn, w.mutations(), w.log());
      admit(txn, to, replying(w.correlation(), to, ownerEpoch, 1, closed));
    } catch (RuntimeException e) {
      to.tell(w.refused(Refusals.of(e, closed)));
    }
  }

  /**
   * Where the write's reply goes: its {@code replyTo}, or with a request id the attempt of that
   * id ({@link RequestLedger#claim}); null when the request needs nothing more.
   */
  private RequestLedger.Answer answerFor(RequestId id, long correlation, ActorRef<WriteReply> replyTo) {
    RequestLedger.Answer to = reply -> replies.tell(replyTo, reply);
    return id == null ? to : ledger.claim(id, ownerEpoch, correlation, to);
  }

  /**
   * Admit {@code txn}; an attempt of a request id is bound to it, so that its write records the id,
   * and the commit's request settles the attempt before {@code reply} is told ({@link
   * CommitRequest#complete}).
   */
  private void admit(Transaction txn, RequestLedger.Answer to, CommitRequest.Completion reply) {
    RequestLedger.Attempt attempt = to instanceof RequestLedger.Attempt a ? a : null;
    if (attempt != null) {
      ledger.bind(txn.id(), attempt);
    }
    db.admit(txn, attempt, reply);
  }

  private void onConditionalWrite(ConditionalWrite c) {
    RequestLedger.Answer to = answerFor(c.requestId(), c.correlation(), c.replyTo());
    if (to == null) {
      return;
    }
    try {
      runConditionalWrite(c, to, 1);
    } catch (RuntimeException e) {
      to.tell(c.refused(Refusals.of(e, closed)));
    }
  }

  /**
   * One attempt of a conditional write. The first runs on the calling actor's thread; a retry
   * after a validation conflict runs on the completion dispatcher (it touches only the
   * thread-safe database).
   */
  private void runConditionalWrite(ConditionalWrite c, RequestLedger.Answer to, int attempt) {
    Transaction txn = db.begin();
    List<Expectation> actual = new ArrayList<>();
    try {
      for (Expectation e : c.expected()) {
        byte[] now = txn.get(store(e.store()), e.key()); // tracked: validated at commit
        if (!Arrays.equals(now, e.value())) {
          actual.add(new Expectation(e.store(), e.key(), now));
        }
      }
    } catch (RuntimeException e) {
      txn.abort();
      throw e;
    }
    if (!actual.isEmpty()) {
      txn.abort();
      to.tell(new Conflicted(c.correlation(), ConflictCause.EXPECTATIONS, actual, attempt));
      return;
    }
    apply(txn, c.mutations(), c.log());
    admit(txn, to, new ConditionalReply(c, to, attempt));
  }

  /**
   * A conditional write's reply: as {@link Reply}, except that a validation conflict runs the
   * write again (up to {@code conditionalRetries} times), or, past them, answers with what the
   * keys hold now.
   */
  private final class ConditionalReply extends Reply {
    private final ConditionalWrite write;
    private final RequestLedger.Answer to;
    private final int attempt;

    ConditionalReply(ConditionalWrite write, RequestLedger.Answer to, int attempt) {
      super(write.correlation(), to, ownerEpoch, attempt, closed);
      this.write = write;
      this.to = to;
      this.attempt = attempt;
    }

    @Override
    public void failed(Throwable cause) {
      if (!(unwrap(cause) instanceof ConflictException)) {
        super.failed(cause);
        return;
      }
      // Off the commit thread: run it again, or read what the keys hold now for the reply.
      db.completions().execute(() -> {
        try {
          if (attempt <= conditionalRetries) {
            runConditionalWrite(write, to, attempt + 1);
          } else {
            to.tell(new Conflicted(write.correlation(), ConflictCause.VALIDATION, readNow(write.expected()), attempt));
          }
        } catch (RuntimeException e) {
          to.tell(write.refused(Refusals.of(e, closed)));
        }
      });
    }
  }

  /** What each expected key holds now (read after a validation conflict, not tracked). */
  private List<Expectation> readNow(List<Expectation> expected) {
    Database storage = db.storage();
    List<Expectation> now = new ArrayList<>(expected.size());
    for (Expectation e : expected) {
      Store s = ReadRequests.existingStore(storage, e.store());
      now.add(new Expectation(e.store(), e.key(), s == null ? null : storage.get(s, e.key())));
    }
    return now;
  }

  /** The reply is told from the completion dispatcher: the actor does not wait for the store. */
  private void onCreateStore(CreateStore c) {
    db.createStore(c.name()).whenComplete((store, err) -> replies.tell(c.replyTo(), err == null
        ? new StoreCreated(c.correlation(), c.name(), store.generation())
        : c.refused(Refusals.of(unwrap(err), closed))));
  }

  /** Logical here, on the actor's thread (it syncs one small file); the reply waits for the physical drop. */
  private void onDropStore(DropStore d) {
    db.dropStore(d.name()).whenComplete((done, err) -> replies.tell(d.replyTo(), err == null
        ? new StoreDropped(d.correlation(), d.name())
        : d.refused(Refusals.of(unwrap(err), closed))));
  }

  private void onGetStats(GetStats g) {
    replies.tell(g.replyTo(), stats(g.correlation()));
  }

  /** The database's counters (no latency histograms, so other readers' intervals are left alone). */
  DatabaseStats stats(long correlation) {
    Pipeline p = db.pipeline();
    if (p.isReleased()) {
      throw new DatabaseClosedException(p.db().path());
    }
    DatabaseHealth health = p.db().health();
    RocksDbStats r = p.db().rocksDbStats(); // property reads: in memory, each under RocksDB's mutex for microseconds
    return new DatabaseStats(correlation, database, owner, ownerEpoch, p.settings().commitThreads(), p.queue().executorsSpawned(),
        p.queue().depth(), p.inFlight(), p.queue().admitted.sum(), p.runner().committed.sum(), p.runner().conflicts.sum(),
        p.runner().failed.sum(), p.queue().overloaded.sum(), health.state().name(), health.isOk() ? "" : health.toString(),
        r.pendingCompactionBytes(), r.memtableBytes(), r.liveSstBytes(), r.blockCacheBytes(), r.blockCacheHits(),
        r.blockCacheMisses(), r.stallMicros(), r.delayedWriteRate(), r.writeStopped(), r.runningCompactions(),
        r.runningFlushes());
  }

  private void onOpenChangeFeed(OpenChangeFeed f) {
    if (db.pipeline().isReleased()) {
      throw new DatabaseClosedException(db.path());
    }
    ReadRequest from = f.afterPosition() < 0 ? ReadRequest.fromStart() : ReadRequest.fromPosition(f.afterPosition()).exclusive();
    // The log is looked up now: one the database does not have is refused unless the request asks to create it.
    SourceRef<ChangeRecord> ref = ChangeFeed.live(f.create() ? db.createTransactionLog(f.log()) : db.transactionLog(f.log()), from)
        .map(ChangeRecord::of)
        .runWith(StreamRefs.sourceRef(), materializer.get());
    replies.tell(f.replyTo(), new FeedOpened(f.correlation(), ref));
  }

  /**
   * The backup runs on the lifecycle dispatcher (it may take minutes), the directory is looked at
   * there too; the reply is told from the completion dispatcher once it is complete or failed.
   */
  private void onBackup(Backup b) {
    db.backup(b.directory()).whenComplete((info, err) -> replies.tell(b.replyTo(), err == null
        ? new BackedUp(b.correlation(), info)
        : b.refused(copyRefusal(err))));
  }

  /** As {@link #onBackup}: on the lifecycle dispatcher, the reply once the checkpoint is complete. */
  private void onCheckpoint(Checkpoint c) {
    db.checkpoint(c.target()).whenComplete((info, err) -> replies.tell(c.replyTo(), err == null
        ? new CheckpointTaken(c.correlation(), info)
        : c.refused(copyRefusal(err))));
  }

  /**
   * A copy that failed because the database closed, before it began or under it (the close shut
   * the logs it was copying), gets the closed database's reply; the others theirs by type.
   */
  private Refusal copyRefusal(Throwable err) {
    Throwable e = unwrap(err);
    Throwable t = e;
    for (int depth = 0; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t instanceof DatabaseClosedException || t instanceof LogClosedException) {
        return closed;
      }
    }
    return Refusals.of(e, closed);
  }

  // ---- helpers ------------------------------------------------------------------------------

  private void apply(Transaction txn, List<Mutation> mutations, LogEntries log) {
    try {
      Database storage = db.storage();
      for (Mutation m : mutations) {
        Store s = m.store() == null ? storage.defaultStore() : storage.store(m.store());
        if (m.value() == null) {
          txn.remove(s, m.key());
        } else {
          txn.put(s, m.key(), m.value());
        }
      }
      if (log != null) {
        txn.useLog(log.log());
        log.entries().forEach(txn::addLogEntry);
      }
    } catch (RuntimeException e) {
      txn.abort();
      throw e;
    }
  }

  /** The store to validate a read of (created on first use, as a write would). */
  private Store store(String name) {
    Database storage = db.storage();
    return name == null ? storage.defaultStore() : storage.store(name);
  }

  /**
   * Where a write's outcome goes: {@code replyTo}, told by the thread that completes the commit.
   * A local database's reply to a closed database is {@link FailureReason#DATABASE_CLOSED}.
   */
  public static CommitRequest.Completion replying(long correlation, ActorRef<WriteReply> replyTo, long epoch, int attempts) {
    return new Reply(correlation, replyTo::tell, epoch, attempts, null);
  }

  private static CommitRequest.Completion replying(long correlation, RequestLedger.Answer replyTo, long epoch, int attempts,
      Refusal closed) {
    return new Reply(correlation, replyTo, epoch, attempts, closed);
  }

  /**
   * A write's reply, told to its answer by the thread that completes the commit: {@link
   * Committed} with the commit's stamp and log position, {@link Conflicted} for a validation
   * conflict, or {@link WriteRefused}.
   */
  private static class Reply implements CommitRequest.Completion {
    private final long correlation;
    private final RequestLedger.Answer replyTo;
    private final long epoch;
    private final int attempts;
    private final Refusal closed;

    Reply(long correlation, RequestLedger.Answer replyTo, long epoch, int attempts, Refusal closed) {
      this.correlation = correlation;
      this.replyTo = replyTo;
      this.epoch = epoch;
      this.attempts = attempts;
      this.closed = closed;
    }

    @Override
    public void committed(CommitResult result) {
      replyTo.tell(new Committed(correlation, new CommitStamp(epoch, result.version()),
          result.logRecord() == null ? -1L : result.logRecord().position()));
    }

    @Override
    public void failed(Throwable cause) {
      Throwable c = unwrap(cause);
      if (c instanceof ConflictException conflict) {
        replyTo.tell(new Conflicted(correlation, ConflictCause.VALIDATION, List.of(), Math.max(attempts, conflict.attempts())));
      } else {
        replyTo.tell(new WriteRefused(correlation, Refusals.of(c, closed)));
      }
    }
  }
}
