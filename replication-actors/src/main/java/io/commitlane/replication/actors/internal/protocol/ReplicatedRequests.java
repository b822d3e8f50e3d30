package io.commitlane.replication.actors.internal.protocol;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;
import io.commitlane.replication.actors.ReplicatedActorSettings;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.commitlane.actors.ChangeRecord;
import io.commitlane.actors.CommitStamp;
import io.commitlane.actors.DatabaseProtocol.Backup;
import io.commitlane.actors.DatabaseProtocol.Checkpoint;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.ConflictCause;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.Counted;
import io.commitlane.actors.DatabaseProtocol.CreateStore;
import io.commitlane.actors.DatabaseProtocol.DropStore;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.FeedOpened;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.GetStats;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.OpenChangeFeed;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.InvalidRequestException;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.actors.ScanRange;
import io.commitlane.actors.internal.protocol.RangePages;
import io.commitlane.actors.internal.protocol.Refusals;
import io.commitlane.actors.internal.protocol.ReplyLimit;
import io.commitlane.actors.internal.protocol.ScanContinuation;
import io.commitlane.replication.ChangesTrimmedException;
import io.commitlane.replication.CommitReceipt;
import io.commitlane.replication.CommitRefusedException;
import io.commitlane.replication.ReadConsistency;
import io.commitlane.replication.ReplicaChangeFeed;
import io.commitlane.replication.ReplicaConflictException;
import io.commitlane.replication.ReplicaExpectationException;
import io.commitlane.replication.ReplicaLogRecord;
import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicatedTransaction;
import io.commitlane.storage.InvalidRangeException;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Store;
import io.commitlane.storage.internal.PrintableBytes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.SourceRef;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.StreamRefs;

/**
 * Serves the actor protocol's requests from one handle, a replica's or a client's: each request
 * gets exactly one reply, told from whichever thread finishes it (the actor's for a replica's
 * reads, the blocking-I/O dispatcher's for a client's reads through the leader, the completion
 * threads after a commit or a read barrier).
 */
public final class ReplicatedRequests {
  private static final int COUNT_PAGE = 10_000;
  private static final int FEED_PAGE = 256;

  private final ReplicatedDatabase db;
  private final ReplicatedActorSettings settings;
  private final Materializer materializer;
  private final ReplyLimit replies;
  /** Where a client handle's reads wait for the leader's answers. */
  private final Executor blocking;
  /** Whether this node holds a replica to read; a client handle reads through the leader. */
  private final boolean replica;

  public ReplicatedRequests(ReplicatedDatabase db, ReplicatedActorSettings settings, Materializer materializer, ReplyLimit replies,
      Executor blocking) {
    this.db = db;
    this.settings = settings;
    this.materializer = materializer;
    this.replies = replies;
    this.blocking = blocking;
    this.replica = db.holdsReplica();
  }

  public void serve(Request request) {
    try {
      if (request instanceof Write w) {
        write(w);
      } else if (request instanceof ConditionalWrite c) {
        conditionalWrite(c);
      } else if (request instanceof Get g) {
        read(g, settings.reads() == ReadConsistency.LINEARIZABLE, () -> replies.tell(g.replyTo(), values(g.correlation(), List.of(g.key()))));
      } else if (request instanceof MultiGet m) {
        read(m, settings.reads() == ReadConsistency.LINEARIZABLE, () -> replies.tell(m.replyTo(), values(m.correlation(), m.keys())));
      } else if (request instanceof Scan s) {
        read(s, settings.reads() == ReadConsistency.LINEARIZABLE, () -> page(s));
      } else if (request instanceof Count c) {
        read(c, settings.reads() == ReadConsistency.LINEARIZABLE, () -> replies.tell(c.replyTo(), count(c)));
      } else if (request instanceof OpenChangeFeed f) {
        openFeed(f);
      } else if (request instanceof CreateStore c) {
        c.answer(notServed(c, "a replicated database creates a store with the first commit that writes to it; write to '"
            + c.name() + "' instead"));
      } else if (request instanceof DropStore d) {
        d.answer(notServed(d, "a replicated database does not drop stores; remove the store's keys instead"));
      } else if (request instanceof GetStats s) {
        s.answer(notServed(s, "a replicated database reports its replicas' state instead: ReplicatedDatabase.status() and"
            + " groupStatus(), or ./commitlane replica status"));
      } else if (request instanceof Backup b) {
        b.answer(notServed(b, "a replicated database is backed up by its replicas: every replica holds a full copy and"
            + " snapshots are RocksDB checkpoints; see docs/replication.md"));
      } else if (request instanceof Checkpoint c) {
        c.answer(notServed(c, "a replicated database is backed up by its replicas: every replica holds a full copy and"
            + " snapshots are RocksDB checkpoints; see docs/replication.md"));
      } else {
        request.answer(notServed(request, "not a request a replicated database serves: " + request.getClass().getSimpleName()));
      }
    } catch (RuntimeException e) {
      request.answer(refusal(e));
    }
  }

  /**
   * Runs {@code answer} now, or after a read barrier; a failure of either is the request's
   * refusal. Without a replica, it runs on the blocking dispatcher (each read is a round trip to
   * the leader, linearizable), and a LOCAL read is refused: there is nothing local to read.
   */
  private void read(Request r, boolean linearizable, Runnable answer) {
    if (!replica) {
      if (!linearizable) {
        r.answer(new Failed(FailureReason.INVALID_REQUEST, "replicated database '" + db.name() + "': this node holds no"
            + " replica to read LOCAL; read LINEARIZABLE (through the leader), or send the request to an actor on a node"
            + " that hosts a replica", false));
        return;
      }
      CompletableFuture.runAsync(answer, blocking).whenComplete((v, error) -> {
        if (error != null) {
          r.answer(refusal(error));
        }
      });
      return;
    }
    if (!linearizable) {
      answer.run();
      return;
    }
    db.sync().whenComplete((index, error) -> {
      if (error != null) {
        r.answer(refusal(error));
        return;
      }
      try {
        answer.run();
      } catch (RuntimeException e) {
        r.answer(refusal(e));
      }
    });
  }

  private void write(Write w) {
    ReplicatedTransaction t = db.begin();
    built(t, () -> apply(t, w.mutations(), w.log()));
    t.commit(requestId(w.requestId())).whenComplete((receipt, error) -> replies.tell(w.replyTo(), error == null
        ? committed(w.correlation(), receipt, w.log() != null)
        : writeRefusal(w.correlation(), error, List.of(), 1)));
  }

  /**
   * Commits the mutations with the expectations attached: every replica checks them at the
   * commit's place in the group's log, so nothing is read here and no read barrier is waited
   * for. A commit whose expectations did not hold there is answered with what the keys held.
   */
  private void conditionalWrite(ConditionalWrite c) {
    ReplicatedTransaction t = db.begin();
    built(t, () -> {
      for (Expectation e : c.expected()) {
        t.expect(store(e.store()), e.key(), e.value());
      }
      apply(t, c.mutations(), c.log());
    });
    t.commit(requestId(c.requestId())).whenComplete((receipt, error) -> {
      if (error == null) {
        replies.tell(c.replyTo(), committed(c.correlation(), receipt, c.log() != null));
      } else if (unwrap(error) instanceof ReplicaExpectationException failed) {
        replies.tell(c.replyTo(), new Conflicted(c.correlation(), ConflictCause.EXPECTATIONS, failedExpectations(c.expected(),
            failed.actual()), 1));
      } else {
        replies.tell(c.replyTo(), writeRefusal(c.correlation(), error, List.of(), 1));
      }
    });
  }

  /** Runs {@code build} on {@code t}; a request it cannot build (an invalid name) releases the transaction's snapshot. */
  private static void built(ReplicatedTransaction t, Runnable build) {
    try {
      build.run();
    } catch (RuntimeException e) {
      t.abort();
      throw e;
    }
  }

  /** The expectations that did not hold, each with what its key held at the commit's place in the log. */
  private static List<Expectation> failedExpectations(List<Expectation> expected, List<byte[]> actual) {
    List<Expectation> failed = new ArrayList<>();
    for (int i = 0; i < expected.size() && i < actual.size(); i++) {
      Expectation e = expected.get(i);
      if (!Arrays.equals(e.value(), actual.get(i))) {
        failed.add(new Expectation(e.store(), e.key(), actual.get(i)));
      }
    }
    return failed;
  }

  private static void apply(ReplicatedTransaction t, List<Mutation> mutations, LogEntries log) {
    for (Mutation m : mutations) {
      if (m.value() == null) {
        t.remove(store(m.store()), m.key());
      } else {
        t.put(store(m.store()), m.key(), m.value());
      }
    }
    if (log != null) {
      t.log(log.log(), log.entries().toArray(byte[][]::new));
    }
  }

  private static byte[] requestId(RequestId id) {
    return id == null ? null : id.value().getBytes(UTF_8);
  }

  /** A replicated commit's stamp is its index in the group's log; so is its log position, when it logged. */
  private static Committed committed(long correlation, CommitReceipt receipt, boolean logged) {
    return new Committed(correlation, new CommitStamp(0, receipt.index()), logged ? receipt.index() : -1);
  }

  private Values values(long correlation, List<Key> keys) {
    try (ReplicatedTransaction t = db.begin()) {
      List<byte[]> values = new ArrayList<>(keys.size());
      for (Key k : keys) {
        values.add(t.get(store(k.store()), k.key()));
      }
      return new Values(correlation, values);
    }
  }

  /**
   * One page from one snapshot, told to the scan's caller. The continuation holds the range it
   * belongs to, what is left of the range's limit and the last key returned, so nothing is kept
   * between pages. A page ends at the page size, at {@code max-page-bytes}, or before it would not
   * reach a caller on another node; one entry larger than that is refused, naming it.
   */
  private void page(Scan s) {
    ScanRange sr = s.range();
    KeyRange range = keyRange(sr);
    int left = sr.limit();
    if (s.after() != null) {
      ScanContinuation from = ScanContinuation.decode(sr, s.after());
      left = from.left();
      range = from.resume(range);
    }
    int ask = left > 0 ? Math.min(left, s.pageSize()) : s.pageSize();
    List<KeyValue> read;
    try (ReplicatedTransaction t = db.begin()) {
      read = t.list(store(sr.store()), range.limit(ask + 1)); // one more: is there a next page?
    }
    long carried = replies.bytesFor(s.replyTo());
    long maxBytes = Math.min(settings.maxPageBytes(), carried);
    List<KeyValue> page = new ArrayList<>(Math.min(ask, read.size()));
    long bytes = 0;
    for (KeyValue kv : read) {
      long size = RangePages.ENTRY_OVERHEAD_BYTES + kv.key().length + (kv.value() == null ? 0 : kv.value().length);
      if (page.size() == ask || (!page.isEmpty() && bytes + size > maxBytes)) {
        break;
      }
      page.add(kv);
      bytes += size;
    }
    if (bytes > carried) {
      s.answer(replies.refusal(s.replyTo(), "the entry at key " + PrintableBytes.of(page.get(0).key()) + " is "
          + bytes + " bytes", "To skip it, scan on from after it (ScanRange.fromExclusive(key), or to(key) in reverse)"));
      return;
    }
    int leftAfter = left > 0 ? left - page.size() : 0;
    boolean last = read.size() == page.size() || (left > 0 && leftAfter == 0);
    byte[] continuation = last ? null : ScanContinuation.encode(sr, leftAfter, page.get(page.size() - 1).key());
    replies.tell(s.replyTo(), new Page(s.correlation(), page, continuation, last));
  }

  /** Exact, from one snapshot, a page of keys at a time; an estimate is answered exactly too. */
  private Counted count(Count c) {
    ScanRange sr = c.range();
    KeyRange range = keyRange(sr).keysOnly();
    long n = 0;
    try (ReplicatedTransaction t = db.begin()) {
      while (true) {
        int ask = sr.limit() > 0 ? (int) Math.min(COUNT_PAGE, sr.limit() - n) : COUNT_PAGE;
        if (ask == 0) {
          break;
        }
        List<KeyValue> keys = t.list(store(sr.store()), range.limit(ask));
        n += keys.size();
        if (keys.size() < ask) {
          break;
        }
        range = range.after(keys.get(keys.size() - 1).key());
      }
    }
    return new Counted(c.correlation(), n, true);
  }

  /** The range's bounds, direction and keys-only flag; its limit is applied page by page. */
  private static KeyRange keyRange(ScanRange sr) {
    try {
      KeyRange r = KeyRange.all();
      if (sr.lower() != null) {
        r = sr.lowerInclusive() ? r.from(sr.lower()) : r.fromExclusive(sr.lower());
      }
      if (sr.upper() != null) {
        r = sr.upperInclusive() ? r.toInclusive(sr.upper()) : r.to(sr.upper());
      }
      r = sr.reversed() ? r.reverse() : r;
      return sr.withoutValues() ? r.keysOnly() : r;
    } catch (InvalidRangeException e) {
      throw new InvalidRequestException(e.getMessage());
    }
  }

  /**
   * A live feed of this replica's records of the log, from after the position (the oldest
   * retained when negative); positions are commit indexes, the same on every replica.
   */
  private void openFeed(OpenChangeFeed f) {
    if (!replica) {
      f.answer(new Failed(FailureReason.INVALID_REQUEST, "replicated database '" + db.name() + "': this node holds no"
          + " replica, so it has no change feed; open the feed through an actor on a node that hosts a replica", false));
      return;
    }
    ReplicaChangeFeed feed = db.changes(f.log(), f.afterPosition());
    SourceRef<ChangeRecord> ref = Source.unfoldResourceAsync(
            () -> CompletableFuture.completedFuture(feed),
            ReplicatedRequests::nextRecords,
            open -> {
              open.close();
              return CompletableFuture.completedFuture(Done.getInstance());
            })
        .mapConcat(records -> records)
        .map(r -> new ChangeRecord(r.index(), r.timestamp(), r.index(), r.entries()))
        .runWith(StreamRefs.sourceRef(), materializer);
    replies.tell(f.replyTo(), new FeedOpened(f.correlation(), ref));
  }

  /** The next records, waiting for the replica to apply more when there are none yet; a live feed never ends. */
  private static CompletionStage<Optional<List<ReplicaLogRecord>>> nextRecords(ReplicaChangeFeed feed) {
    List<ReplicaLogRecord> records = feed.poll(FEED_PAGE);
    if (!records.isEmpty()) {
      return CompletableFuture.completedFuture(Optional.of(records));
    }
    return feed.whenMore().thenCompose(v -> nextRecords(feed));
  }

  private static String store(String name) {
    return name == null ? Store.DEFAULT : name;
  }

  private static Failed notServed(Request r, String why) {
    return new Failed(FailureReason.INVALID_REQUEST, why, false);
  }

  private static WriteReply writeRefusal(long correlation, Throwable error,
      List<Expectation> actual, int attempts) {
    if (unwrap(error) instanceof ReplicaConflictException) {
      return new Conflicted(correlation, ConflictCause.VALIDATION, actual, attempts);
    }
    return new WriteRefused(correlation, refusal(error));
  }

  /**
   * The protocol's refusal for a failure of the replicated database: its own failures (a replica
   * that does not answer, a refused commit, trimmed changes) here, the rest as a local database
   * refuses them ({@link Refusals}).
   */
  public static Refusal refusal(Throwable error) {
    Throwable e = unwrap(error);
    String message = String.valueOf(e.getMessage());
    if (e instanceof ReplicaUnavailableException) {
      return new Unavailable(UnavailableReason.NO_REPLY, message);
    }
    if (e instanceof CommitRefusedException || e instanceof ChangesTrimmedException) {
      return new Failed(FailureReason.INVALID_REQUEST, message, false);
    }
    return Refusals.of(e, null);
  }

}
