package io.commitlane.actors;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.commitlane.actors.internal.protocol.RequestNames;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.CheckpointInfo;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.internal.PrintableBytes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.annotation.DoNotInherit;
import org.apache.pekko.stream.SourceRef;

/**
 * The messages a database actor understands, local ({@link DatabaseActor}, {@link
 * CommitlaneDatabase#ref()}) or sharded (the cluster module's entity): self-contained, immutable
 * and serializable, so an actor that holds only the database's reference can write,
 * conditionally write, read, manage stores, follow a change feed, and take backups and
 * checkpoints.
 *
 * <p><b>Exactly one reply per request</b>, sent to the request's {@code replyTo} and carrying its
 * {@code correlation} (a value of the sender's choosing, returned unchanged): also when the
 * database is full ({@link Failed} with {@link FailureReason#OVERLOADED}), closed or closing
 * ({@link FailureReason#DATABASE_CLOSED}), or its actor stopped before it read the request (the
 * {@link Commitlane} extension answers those from the dead letters). A sharded database may also
 * answer {@link Unavailable}.
 *
 * <p><b>To the handler of the request that caused it.</b> Every reply belongs to exactly one reply
 * family, the request's: a refusal is the family's own record ({@link WriteRefused}, {@link
 * ReadRefused}, ...) carrying the {@link Refusal} ({@link Failed} or {@link Unavailable}). An actor
 * with one message adapter per family gets each reply, refusals included, on the adapter of the
 * request that caused it.
 *
 * <p><b>Threads.</b> Requests are read and transactions built on the database actor's thread;
 * commits run on the database's commit executors, and a write's reply is told from there (no hop
 * back through the actor). Backups and checkpoints run on {@code commitlane.lifecycle-dispatcher}
 * and reply from the completion dispatcher.
 */
public final class DatabaseProtocol {
  private DatabaseProtocol() {}

  // ---- requests -------------------------------------------------------------------------------

  /**
   * What a database actor accepts: the protocol's {@link Request}s, and messages of its own. Not
   * sealed, so that a sharded database can add its lifecycle messages; send only requests.
   *
   * <p>Not for users to implement: a message of another type sent to a database is not answered.
   */
  @DoNotInherit
  public interface Command {}

  /** A request of the protocol. */
  public sealed interface Request extends Command, ProtocolMessage
      permits Write, ConditionalWrite, Get, MultiGet, Scan, Count, CreateStore, DropStore, GetStats, OpenChangeFeed, Backup,
      Checkpoint {
    /** The sender's value, returned in the reply. */
    long correlation();

    /**
     * The reply that says this request was not served, of this request's own reply family (a
     * {@link WriteRefused} for a {@link Write}, a {@link ReadRefused} for a {@link Get}, ...),
     * carrying its correlation.
     */
    RefusedReply refused(Refusal refusal);

    /** Answer this request with {@code refusal} (it was not served): for whoever cannot serve it. */
    void answer(Refusal refusal);
  }

  /**
   * Commit an atomic batch of puts and removes, and a transaction-log record if {@code log} is not
   * null. Blind writes: use {@link ConditionalWrite} when they depend on what is stored.
   *
   * <p><b>Request ids.</b> With a {@code requestId} (may be null), the database records the id
   * and the outcome in the same RocksDB write as the data (and in the log record, if it logs one),
   * and answers any later request with the same id with that outcome, applying nothing again: on
   * any owner, after a crash and after a handoff, for at least {@code
   * commitlane.request-ids.window} after the write (while {@code max-ids} ids are remembered, a
   * write with a new id is refused as {@code OVERLOADED} instead). A repeat of an attempt that
   * failed as not durable is refused until the database is reopened. A repeat that arrives while the first is still running gets the
   * first's outcome when it completes. So a write answered {@code NO_REPLY} (outcome unknown) may
   * be sent again with the same id. An attempt that wrote nothing (a conflict, a refusal) leaves
   * no record: sending it again runs it again.
   */
  public record Write(List<Mutation> mutations, LogEntries log, RequestId requestId, long correlation, ActorRef<WriteReply> replyTo)
      implements Request {
    public Write {
      mutations = copy(mutations, "Write.mutations");
      if (mutations.isEmpty() && log == null) {
        throw new InvalidRequestException("a Write needs at least one mutation or a log record");
      }
      requireReplyTo(replyTo, "a Write");
    }

    /** A write without a request id. */
    public Write(List<Mutation> mutations, LogEntries log, long correlation, ActorRef<WriteReply> replyTo) {
      this(mutations, log, null, correlation, replyTo);
    }

    @Override
    public WriteRefused refused(Refusal refusal) {
      return new WriteRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /**
   * A conditional write: inside one transaction, read every expected key; if each holds its
   * expected value (or is absent, for a null value), apply the mutations and commit. The reads are
   * tracked, so a commit that changes one of them between the read and this commit makes it
   * conflict at validation. Answers {@link Conflicted} with {@link ConflictCause#EXPECTATIONS} and
   * what the keys hold now when an expectation does not hold, or with {@link
   * ConflictCause#VALIDATION} when validation failed (a local database tries once; a sharded one
   * tries again while the expectations hold, {@code commitlane.cluster.conflict-retries} times).
   * A {@code requestId} (may be null) works as for {@link Write}: a repeat is answered with the
   * first outcome that wrote, instead of being checked against expectations its own write changed.
   */
  public record ConditionalWrite(List<Expectation> expected, List<Mutation> mutations, LogEntries log, RequestId requestId,
      long correlation, ActorRef<WriteReply> replyTo) implements Request {
    public ConditionalWrite {
      expected = copy(expected, "ConditionalWrite.expected");
      mutations = copy(mutations, "ConditionalWrite.mutations");
      if (expected.isEmpty() && mutations.isEmpty() && log == null) {
        throw new InvalidRequestException("a ConditionalWrite needs at least one expected value, mutation or log record");
      }
      requireReplyTo(replyTo, "a ConditionalWrite");
    }

    /** A conditional write without a request id. */
    public ConditionalWrite(List<Expectation> expected, List<Mutation> mutations, LogEntries log, long correlation,
        ActorRef<WriteReply> replyTo) {
      this(expected, mutations, log, null, correlation, replyTo);
    }

    @Override
    public WriteRefused refused(Refusal refusal) {
      return new WriteRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /** Read the latest committed value of a key (null when absent, or when its store does not exist). */
  public record Get(Key key, long correlation, ActorRef<ReadReply> replyTo) implements Request {
    public Get {
      if (key == null) {
        throw new InvalidRequestException("a Get needs a key");
      }
      requireReplyTo(replyTo, "a Get");
    }

    @Override
    public ReadRefused refused(Refusal refusal) {
      return new ReadRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /** Read several keys from one snapshot; the values come back in the order of the keys. */
  public record MultiGet(List<Key> keys, long correlation, ActorRef<ReadReply> replyTo) implements Request {
    public MultiGet {
      keys = copy(keys, "MultiGet.keys");
      requireReplyTo(replyTo, "a MultiGet");
    }

    @Override
    public ReadRefused refused(Refusal refusal) {
      return new ReadRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /**
   * Read one page of {@code range}: at most {@code pageSize} entries (1..{@value #MAX_PAGE_SIZE}),
   * fewer when their bytes would pass the database's page limit. The reply is a {@link Page}; to
   * read on, send {@link #next(Page, long)}. Each page is read from a view of its own and nothing
   * is held between pages, so a reader may page slowly; the pages together are not one snapshot
   * (a transaction's {@code scan} is). A store that does not exist reads as empty.
   *
   * @param after null for the first page, else the {@link Page#continuation()} of the page before
   */
  public record Scan(ScanRange range, int pageSize, byte[] after, long correlation, ActorRef<ScanReply> replyTo)
      implements Request {
    public static final int MAX_PAGE_SIZE = 10_000;

    public Scan {
      if (range == null) {
        throw new InvalidRequestException("a Scan needs a range (ScanRange.all(store) for every key)");
      }
      if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
        throw new InvalidRequestException("a Scan's page size must be in 1.." + MAX_PAGE_SIZE + ", not " + pageSize);
      }
      after = after == null ? null : after.clone();
      requireReplyTo(replyTo, "a Scan");
    }

    /** The first page of {@code range}. */
    public Scan(ScanRange range, int pageSize, long correlation, ActorRef<ScanReply> replyTo) {
      this(range, pageSize, null, correlation, replyTo);
    }

    /** The request for the page after {@code page} (which must not be the last). */
    public Scan next(Page page, long correlation) {
      if (page == null) {
        throw new InvalidRequestException("Scan.next needs the page before (its continuation says where the next one starts)");
      }
      if (page.last()) {
        throw new InvalidRequestException("the page was the last one of its scan; there is nothing after it");
      }
      return new Scan(range, pageSize, page.continuation(), correlation, replyTo);
    }

    @Override
    public String toString() {
      return "Scan[" + range + ", pageSize=" + pageSize + (after == null ? "" : ", after a continuation") + ", correlation="
          + correlation + ", replyTo=" + replyTo + "]";
    }

    @Override
    public ScanRefused refused(Refusal refusal) {
      return new ScanRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /**
   * Count the keys of {@code range} (up to its limit): exactly, from one view, or, with {@code
   * estimate}, from RocksDB's statistics without reading them (cheap, approximate).
   */
  public record Count(ScanRange range, boolean estimate, long correlation, ActorRef<CountReply> replyTo) implements Request {
    public Count {
      if (range == null) {
        throw new InvalidRequestException("a Count needs a range (ScanRange.all(store) for every key)");
      }
      requireReplyTo(replyTo, "a Count");
    }

    @Override
    public CountRefused refused(Refusal refusal) {
      return new CountRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /**
   * Create a named store, or confirm it exists. If an earlier store of that name is still being
   * dropped, the reply comes once that drop finished and the new store exists.
   */
  public record CreateStore(String name, long correlation, ActorRef<StoreReply> replyTo) implements Request {
    public CreateStore {
      RequestNames.namedStore(name, "CreateStore");
      requireReplyTo(replyTo, "a CreateStore");
    }

    @Override
    public StoreRefused refused(Refusal refusal) {
      return new StoreRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /**
   * Drop a named store: logical when the database actor handles the message (later writes and
   * reads of it fail with {@link FailureReason#STORE_DROPPED}), physical once every commit
   * admitted before has ended; {@link StoreDropped} comes then.
   */
  public record DropStore(String name, long correlation, ActorRef<StoreReply> replyTo) implements Request {
    public DropStore {
      RequestNames.namedStore(name, "DropStore");
      requireReplyTo(replyTo, "a DropStore");
    }

    @Override
    public StoreRefused refused(Refusal refusal) {
      return new StoreRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /** Ask for the database's counters (and, for a sharded database, who owns it). */
  public record GetStats(long correlation, ActorRef<StatsReply> replyTo) implements Request {
    public GetStats {
      requireReplyTo(replyTo, "a GetStats");
    }

    @Override
    public StatsRefused refused(Refusal refusal) {
      return new StatsRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /**
   * Open a live change feed of a transaction log: committed records after {@code afterPosition}
   * (from the start when negative), then new ones as they commit. The reply carries a {@link
   * SourceRef}; run its source within {@code pekko.stream.materializer.stream-ref.subscription-timeout}.
   * The feed fails when the database closes: open it again from the last position handled.
   *
   * <p>Opening a feed is a read and creates nothing: a log the database does not have (one no
   * commit wrote to yet, or a misspelt name) is refused with {@link FailureReason#UNKNOWN_LOG}. A
   * consumer that starts before the first commit to its log asks for it with {@code create}: the
   * log is created (empty) if the database does not have it.
   */
  public record OpenChangeFeed(String log, long afterPosition, boolean create, long correlation, ActorRef<FeedReply> replyTo)
      implements Request {
    public OpenChangeFeed {
      RequestNames.log(log);
      requireReplyTo(replyTo, "an OpenChangeFeed");
    }

    /** A feed of a log the database has (refused as {@link FailureReason#UNKNOWN_LOG} otherwise). */
    public OpenChangeFeed(String log, long afterPosition, long correlation, ActorRef<FeedReply> replyTo) {
      this(log, afterPosition, false, correlation, replyTo);
    }

    @Override
    public FeedRefused refused(Refusal refusal) {
      return new FeedRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /**
   * Back up the database into the backup directory {@code directory} (a {@link
   * io.commitlane.storage.BackupStore}: created by the first backup, one directory per database)
   * while commits go on: incremental (table files an earlier backup holds are not copied again),
   * checksummed, with the transaction logs, holding every commit acknowledged before the request
   * was served. It runs on {@code commitlane.lifecycle-dispatcher}, not on the sender's thread nor
   * on the database actor's (which serves other requests meanwhile), and the reply comes when the
   * backup is complete: {@link BackedUp}, or a {@link Failed} whose reason says why ({@code IN_USE}:
   * another backup, restore, delete or purge holds the directory, retryable; {@code NO_SPACE};
   * {@code INVALID_REQUEST}: a directory that cannot hold it; {@code READ_ONLY}; {@code
   * DATABASE_CLOSED}: the database closed before or while it ran; {@code STORAGE}). A backup that
   * fails keeps nothing of itself; earlier backups are untouched. It carries no request id: sent
   * again after a lost reply, it takes another backup.
   *
   * @param directory resolved against the working directory of the process that builds the
   *     request; it names a directory on the node that holds the database (the owner, for a sharded
   *     one)
   */
  public record Backup(Path directory, long correlation, ActorRef<BackupReply> replyTo) implements Request {
    public Backup {
      if (directory == null) {
        throw new InvalidRequestException("a Backup needs a backup directory");
      }
      directory = directory.toAbsolutePath().normalize();
      requireReplyTo(replyTo, "a Backup");
    }

    @Override
    public BackupRefused refused(Refusal refusal) {
      return new BackupRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  /**
   * Take a checkpoint of the database into {@code target}, a directory that does not exist yet,
   * while commits go on: a copy that opens as a database of its own (table files hard-linked where
   * the file system allows, the rest copied) and holds every commit acknowledged before the
   * request was served. It runs as a {@link Backup} does, off the sender's and the actor's
   * threads, and the reply comes when it is complete: {@link CheckpointTaken}, or a {@link Failed}
   * ({@code INVALID_REQUEST}: the target exists or overlaps the database; {@code NO_SPACE}; {@code
   * READ_ONLY}; {@code DATABASE_CLOSED}; {@code STORAGE}). A failed checkpoint leaves nothing at
   * the target.
   *
   * @param target resolved as a {@link Backup}'s directory is
   */
  public record Checkpoint(Path target, long correlation, ActorRef<CheckpointReply> replyTo) implements Request {
    public Checkpoint {
      if (target == null) {
        throw new InvalidRequestException("a Checkpoint needs a target directory");
      }
      target = target.toAbsolutePath().normalize();
      requireReplyTo(replyTo, "a Checkpoint");
    }

    @Override
    public CheckpointRefused refused(Refusal refusal) {
      return new CheckpointRefused(correlation, refusal);
    }

    @Override
    public void answer(Refusal refusal) {
      replyTo.tell(refused(refusal));
    }
  }

  // ---- replies --------------------------------------------------------------------------------

  /**
   * Every reply: it carries the correlation of the request it answers, and belongs to exactly one
   * reply family ({@link WriteReply}, {@link ReadReply}, ...), that of the request. So an actor
   * with one message adapter per family receives each reply on the adapter of the request that
   * caused it, refusals included, whatever order it registered them in (Pekko picks the last
   * registered adapter whose class matches: a class in two families would go to whichever came
   * last).
   */
  public sealed interface Reply extends ProtocolMessage
      permits WriteReply, ReadReply, ScanReply, CountReply, StoreReply, StatsReply, FeedReply, BackupReply, CheckpointReply,
      RefusedReply {
    long correlation();
  }

  /** The reply to {@link Write} and {@link ConditionalWrite}: {@link Committed}, {@link Conflicted} or {@link WriteRefused}. */
  public sealed interface WriteReply extends Reply permits Committed, Conflicted, WriteRefused {
    /** Whether sending the same request again may succeed. */
    boolean retryable();
  }

  /** The reply to {@link Get} and {@link MultiGet}: {@link Values} or {@link ReadRefused}. */
  public sealed interface ReadReply extends Reply permits Values, ReadRefused {}

  /** The reply to {@link Scan}: a {@link Page} or {@link ScanRefused}. */
  public sealed interface ScanReply extends Reply permits Page, ScanRefused {}

  /** The reply to {@link Count}: {@link Counted} or {@link CountRefused}. */
  public sealed interface CountReply extends Reply permits Counted, CountRefused {}

  /**
   * The reply to {@link CreateStore} and {@link DropStore}: {@link StoreCreated}, {@link
   * StoreDropped} or {@link StoreRefused}.
   */
  public sealed interface StoreReply extends Reply permits StoreCreated, StoreDropped, StoreRefused {}

  /** The reply to {@link GetStats}: {@link DatabaseStats} or {@link StatsRefused}. */
  public sealed interface StatsReply extends Reply permits DatabaseStats, StatsRefused {}

  /** The reply to {@link OpenChangeFeed}: {@link FeedOpened} or {@link FeedRefused}. */
  public sealed interface FeedReply extends Reply permits FeedOpened, FeedRefused {}

  /** The reply to {@link Backup}: {@link BackedUp} or {@link BackupRefused}. */
  public sealed interface BackupReply extends Reply permits BackedUp, BackupRefused {}

  /** The reply to {@link Checkpoint}: {@link CheckpointTaken} or {@link CheckpointRefused}. */
  public sealed interface CheckpointReply extends Reply permits CheckpointTaken, CheckpointRefused {}

  /**
   * A reply that says its request was not served, and why ({@link #refusal()}: {@link Failed} or
   * {@link Unavailable}). Each reply family has its own ({@link WriteRefused}, {@link ReadRefused},
   * ...), so a refusal reaches the handler of the request that caused it, never another family's;
   * generic code reads why from here, whatever the family:
   *
   * <pre>{@code
   * if (reply instanceof RefusedReply r && r.is(FailureReason.OVERLOADED)) { ... }   // any family
   * if (reply instanceof WriteRefused r && r.refusal() instanceof Failed f) { ... }  // one family
   * }</pre>
   */
  public sealed interface RefusedReply extends Reply
      permits WriteRefused, ReadRefused, ScanRefused, CountRefused, StoreRefused, StatsRefused, FeedRefused, BackupRefused,
      CheckpointRefused {
    /** Why the request was not served. */
    Refusal refusal();

    /** What happened and what to do. */
    default String message() {
      return refusal().message();
    }

    /** Whether sending the same request again may succeed. */
    boolean retryable();

    /** Whether the request failed for {@code reason}. */
    default boolean is(FailureReason reason) {
      return refusal().is(reason);
    }

    /** Whether the (sharded) database was unavailable for {@code reason}. */
    default boolean is(UnavailableReason reason) {
      return refusal().is(reason);
    }
  }

  /**
   * Why a request was not served: it failed ({@link Failed}), or a sharded or replicated database
   * could not be reached ({@link Unavailable}). A value, not a reply: it travels inside its
   * request family's {@link RefusedReply}.
   */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
  @JsonSubTypes({@JsonSubTypes.Type(value = Failed.class, name = "failed"),
      @JsonSubTypes.Type(value = Unavailable.class, name = "unavailable")})
  public sealed interface Refusal extends ProtocolMessage permits Failed, Unavailable {
    /** What happened and what to do. */
    String message();

    /** Whether sending the same request again may succeed. */
    boolean retryable();

    /** Whether this is a failure for {@code reason}. */
    default boolean is(FailureReason reason) {
      return this instanceof Failed f && f.reason() == reason;
    }

    /** Whether this is an unavailability for {@code reason}. */
    default boolean is(UnavailableReason reason) {
      return this instanceof Unavailable u && u.reason() == reason;
    }
  }

  /**
   * A {@link Write} or {@link ConditionalWrite} was not served: nothing was written (unless the
   * refusal is an {@link Unavailable} whose {@link Unavailable#outcomeKnown()} is false).
   */
  public record WriteRefused(long correlation, Refusal refusal) implements WriteReply, RefusedReply {
    public WriteRefused {
      Objects.requireNonNull(refusal, "refusal");
    }

    @Override
    public boolean retryable() {
      return refusal.retryable();
    }
  }

  /** A {@link Get} or {@link MultiGet} was not served. */
  public record ReadRefused(long correlation, Refusal refusal) implements ReadReply, RefusedReply {
    public ReadRefused {
      Objects.requireNonNull(refusal, "refusal");
    }

    @Override
    public boolean retryable() {
      return refusal.retryable();
    }
  }

  /** A {@link Scan} was not served. */
  public record ScanRefused(long correlation, Refusal refusal) implements ScanReply, RefusedReply {
    public ScanRefused {
      Objects.requireNonNull(refusal, "refusal");
    }

    @Override
    public boolean retryable() {
      return refusal.retryable();
    }
  }

  /** A {@link Count} was not served. */
  public record CountRefused(long correlation, Refusal refusal) implements CountReply, RefusedReply {
    public CountRefused {
      Objects.requireNonNull(refusal, "refusal");
    }

    @Override
    public boolean retryable() {
      return refusal.retryable();
    }
  }

  /** A {@link CreateStore} or {@link DropStore} was not served. */
  public record StoreRefused(long correlation, Refusal refusal) implements StoreReply, RefusedReply {
    public StoreRefused {
      Objects.requireNonNull(refusal, "refusal");
    }

    @Override
    public boolean retryable() {
      return refusal.retryable();
    }
  }

  /** A {@link GetStats} was not served. */
  public record StatsRefused(long correlation, Refusal refusal) implements StatsReply, RefusedReply {
    public StatsRefused {
      Objects.requireNonNull(refusal, "refusal");
    }

    @Override
    public boolean retryable() {
      return refusal.retryable();
    }
  }

  /** A {@link OpenChangeFeed} was not served. */
  public record FeedRefused(long correlation, Refusal refusal) implements FeedReply, RefusedReply {
    public FeedRefused {
      Objects.requireNonNull(refusal, "refusal");
    }

    @Override
    public boolean retryable() {
      return refusal.retryable();
    }
  }

  /** A {@link Backup} was not served. */
  public record BackupRefused(long correlation, Refusal refusal) implements BackupReply, RefusedReply {
    public BackupRefused {
      Objects.requireNonNull(refusal, "refusal");
    }

    @Override
    public boolean retryable() {
      return refusal.retryable();
    }
  }

  /** A {@link Checkpoint} was not served. */
  public record CheckpointRefused(long correlation, Refusal refusal) implements CheckpointReply, RefusedReply {
    public CheckpointRefused {
      Objects.requireNonNull(refusal, "refusal");
    }

    @Override
    public boolean retryable() {
      return refusal.retryable();
    }
  }

  /**
   * Written (and, with {@code fsync} log durability, synced).
   *
   * <p>The answer to a repeated {@link RequestId} is the first attempt's: the same stamp and log
   * position while the database that committed it is still open; from the record kept on disk
   * (after a restart, a crash or a handoff) the same owner epoch and log position, with version 0
   * (versions count commits within one opening and are not kept).
   *
   * @param stamp where the commit stands in the database's history
   * @param logPosition the log record's position, or -1 when the write logged nothing
   */
  public record Committed(long correlation, CommitStamp stamp, long logPosition) implements WriteReply {
    @Override
    public boolean retryable() {
      return false;
    }
  }

  /** Why a write conflicted. */
  public enum ConflictCause {
    /** A conditional write's expectations did not hold: {@link Conflicted#actual()} says what the keys hold now. */
    EXPECTATIONS,
    /** Optimistic validation found a commit that changed what this write read (or, blind, wrote) after its snapshot. */
    VALIDATION
  }

  /**
   * Nothing was written. Retryable: send the write again (after reading again, for {@link
   * ConflictCause#EXPECTATIONS}).
   *
   * @param cause why
   * @param actual for a {@link ConditionalWrite}, what its keys hold now, usable as the next
   *     attempt's expectations: after {@link ConflictCause#EXPECTATIONS} each expectation that did
   *     not hold; after {@link ConflictCause#VALIDATION} every expected key, read after the
   *     conflict. Empty for a {@link Write}.
   * @param attempts attempts made for this write: by the database (a local database tries once, a
   *     sharded one retries validation conflicts), and, in a reply that {@link Retry#write} passes
   *     on, by every round of its loop too
   */
  public record Conflicted(long correlation, ConflictCause cause, List<Expectation> actual, int attempts) implements WriteReply {
    public Conflicted {
      Objects.requireNonNull(cause, "cause");
      actual = actual == null ? List.of() : List.copyOf(actual);
    }

    @Override
    public boolean retryable() {
      return true;
    }
  }

  /** Values read, in the order of the keys asked for; null for an absent key. */
  public record Values(long correlation, List<byte[]> values) implements ReadReply {
    public Values {
      values = Collections.unmodifiableList(new ArrayList<>(values == null ? List.of() : values));
    }

    @Override
    public String toString() {
      return "Values[correlation=" + correlation + ", values=" + PrintableBytes.of(values) + "]";
    }
  }

  /**
   * One page of a {@link Scan}, in the range's order; values are null for a keys-only range.
   *
   * @param continuation where the next page starts ({@link Scan#next}); null on the last page
   * @param last whether the range is done: no page follows
   */
  public record Page(long correlation, List<KeyValue> entries, byte[] continuation, boolean last) implements ScanReply {
    public Page {
      entries = List.copyOf(entries);
      if (last != (continuation == null)) {
        throw new IllegalArgumentException("a page has a continuation exactly when it is not the last");
      }
    }

    @Override
    public String toString() {
      return "Page[correlation=" + correlation + ", " + entries.size() + " entries" + (entries.isEmpty() ? "" : " from "
          + PrintableBytes.of(entries.get(0).key()) + " to " + PrintableBytes.of(entries.get(entries.size() - 1).key()))
          + ", last=" + last + "]";
    }
  }

  /** The number of keys a {@link Count} found; {@code exact} is false for an estimate. */
  public record Counted(long correlation, long count, boolean exact) implements CountReply {}

  /** The store exists and is live (created now, or it already was); {@code generation} tells generations apart. */
  public record StoreCreated(long correlation, String name, int generation) implements StoreReply {}

  /** The store is dropped physically: no commit names it any more and its column family is gone. */
  public record StoreDropped(long correlation, String name) implements StoreReply {}

  /**
   * A database's counters since it opened (on its owner, for a sharded database).
   *
   * @param database the database's name (its directory, or the sharded entity id)
   * @param owner the address of the actor system it is open in
   * @param ownerEpoch the sharded owner's epoch (see {@link CommitStamp}); 0 for a local database
   * @param commitThreads the most commit executors it may run
   * @param executorsStarted commit executors running now
   * @param queueDepth commits admitted and not yet taken by an executor
   * @param inFlight commits admitted and not yet completed
   * @param admitted commits admitted
   * @param committed commits that succeeded
   * @param conflicts commits refused by validation
   * @param failed commits that failed otherwise
   * @param overloaded commits refused because the queue was full
   * @param health the health of RocksDB's background work: {@code OK}, {@code DEGRADED} (a background
   *     error RocksDB recovers from on its own, such as a full disk) or {@code FAILED} (it needs a
   *     reopen); see {@link io.commitlane.storage.DatabaseHealth}. Null from a node that
   *     does not report it
   * @param healthError what failed and RocksDB's status when not {@code OK}, else empty
   * @param pendingCompactionBytes bytes compaction must rewrite (RocksDB's estimate)
   * @param memtableBytes bytes held by memtables
   * @param liveSstBytes bytes of live SST files
   * @param blockCacheBytes bytes held by the block cache
   * @param blockCacheHits block-cache hits since open, -1 without RocksDB statistics
   * @param blockCacheMisses block-cache misses since open, -1 without RocksDB statistics
   * @param stallMicros microseconds writes were delayed or stopped by write stalls since open, -1
   *     without RocksDB statistics; a stop is added when it ends ({@code writeStopped} while it lasts)
   * @param delayedWriteRate bytes/s RocksDB holds writes to while it slows them, 0 when it does not
   *     (also while it stops them)
   * @param writeStopped whether RocksDB stops writes now
   * @param runningCompactions compactions running now
   * @param runningFlushes flushes running now
   */
  public record DatabaseStats(
      long correlation,
      String database,
      String owner,
      long ownerEpoch,
      int commitThreads,
      int executorsStarted,
      int queueDepth,
      long inFlight,
      long admitted,
      long committed,
      long conflicts,
      long failed,
      long overloaded,
      String health,
      String healthError,
      long pendingCompactionBytes,
      long memtableBytes,
      long liveSstBytes,
      long blockCacheBytes,
      long blockCacheHits,
      long blockCacheMisses,
      long stallMicros,
      long delayedWriteRate,
      boolean writeStopped,
      int runningCompactions,
      int runningFlushes) implements StatsReply {
    /** The counters alone, for a database that reports no health or RocksDB numbers (the earlier shape). */
    public DatabaseStats(long correlation, String database, String owner, long ownerEpoch, int commitThreads,
        int executorsStarted, int queueDepth, long inFlight, long admitted, long committed, long conflicts, long failed,
        long overloaded) {
      this(correlation, database, owner, ownerEpoch, commitThreads, executorsStarted, queueDepth, inFlight, admitted,
          committed, conflicts, failed, overloaded, null, "", 0, 0, 0, 0, -1, -1, -1, 0, false, 0, 0);
    }

    /** Hits over lookups since open, in [0, 1]; NaN without statistics or before the first lookup. */
    public double blockCacheHitRate() {
      long lookups = blockCacheHits + blockCacheMisses;
      return blockCacheHits < 0 || lookups == 0 ? Double.NaN : (double) blockCacheHits / lookups;
    }
  }

  /** A change feed ready to be run (on any node). */
  public record FeedOpened(long correlation, SourceRef<ChangeRecord> feed) implements FeedReply {
    public FeedOpened {
      Objects.requireNonNull(feed, "feed");
    }
  }

  /**
   * The backup is complete: {@link BackupInfo#id()} names it in its directory (to verify or
   * restore it), with when it was taken, RocksDB's sequence its data holds, its size and its logs.
   */
  public record BackedUp(long correlation, BackupInfo backup) implements BackupReply {
    public BackedUp {
      Objects.requireNonNull(backup, "backup");
    }
  }

  /** The checkpoint is complete: where it is, RocksDB's sequence its data holds, and its logs. */
  public record CheckpointTaken(long correlation, CheckpointInfo checkpoint) implements CheckpointReply {
    public CheckpointTaken {
      Objects.requireNonNull(checkpoint, "checkpoint");
    }
  }

  /** What kind of failure a {@link Failed} refusal reports. */
  public enum FailureReason {
    /** The database's commit queue was full; nothing was written. Retryable later. */
    OVERLOADED,
    /** The database was closed, or its actor had stopped, before the request ran; nothing was written. */
    DATABASE_CLOSED,
    /**
     * The request was malformed (for example {@code default} given to a drop), or names a path
     * that cannot serve (a checkpoint target that exists, a backup directory inside the database
     * or holding another database's backups); nothing was written.
     */
    INVALID_REQUEST,
    /** A store the request names was dropped; nothing was written. Create the name again to use it. */
    STORE_DROPPED,
    /** A drop named a store that does not exist; nothing was changed. */
    UNKNOWN_STORE,
    /**
     * An {@link OpenChangeFeed} named a transaction log the database does not have (a log is
     * created by the first commit that writes to it); nothing was created. Check the name, or open
     * the feed after that commit, or with {@link OpenChangeFeed#create()}.
     */
    UNKNOWN_LOG,
    /** A storage or transaction-log failure (see the message). */
    STORAGE,
    /** The database is open read-only ({@link Commitlane#openReadOnly}); nothing was written. */
    READ_ONLY,
    /**
     * A {@link Backup}'s directory is held by another backup, restore, delete or purge (in this
     * process or another); nothing was written. Retryable once that one finished.
     */
    IN_USE,
    /**
     * Too little disk space where a {@link Backup} or {@link Checkpoint} goes: refused before
     * anything was written, or the disk filled up during the copy (what it wrote was removed). The
     * database is unharmed. Free space, then send it again.
     */
    NO_SPACE,
    /**
     * The reply is larger than the remote transport carries to a caller on another node ({@code
     * pekko.remote.artery.advanced.maximum-frame-size}, less 4 KiB for headers); the message names
     * the limit and says what was done (a write that conflicted wrote nothing) and what to do: read
     * less per request, or raise the frame on every node. A caller on the database's own node gets
     * the reply itself.
     */
    REPLY_TOO_LARGE
  }

  /** The request failed; {@code message} says what happened and what to do. */
  public record Failed(FailureReason reason, String message, boolean retryable) implements Refusal {
    public Failed {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }
  }

  /** Why a sharded database did not serve a request (a local database never answers {@link Unavailable}). */
  public enum UnavailableReason {
    /** The database is closing on its owner (moving, stopping, passivating): nothing written. */
    CLOSING,
    /** The previous owner still held the database past {@code open-timeout}: nothing written. */
    PREVIOUS_OWNER_HOLDS,
    /** Too many requests arrived while the database opened: nothing written. */
    BUFFER_FULL,
    /** No reply within the ask timeout (owner unreachable, gone, or slow): the outcome is unknown. */
    NO_REPLY
  }

  /**
   * The database could not serve the request. Always retryable; {@link #outcomeKnown()} says
   * whether the request certainly did nothing.
   */
  public record Unavailable(UnavailableReason reason, String message) implements Refusal {
    public Unavailable {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }

    @Override
    public boolean retryable() {
      return true;
    }

    /** False only for {@code NO_REPLY}: a write may then have been applied. */
    public boolean outcomeKnown() {
      return reason != UnavailableReason.NO_REPLY;
    }
  }

  /** Where the reply goes: every request needs one. */
  private static void requireReplyTo(ActorRef<?> replyTo, String request) {
    if (replyTo == null) {
      throw new InvalidRequestException(request + " needs a replyTo: the actor its one reply goes to");
    }
  }

  private static <T> List<T> copy(List<T> list, String what) {
    if (list == null) {
      return List.of();
    }
    for (T each : list) {
      if (each == null) {
        throw new InvalidRequestException(what + " holds a null element");
      }
    }
    return List.copyOf(list);
  }
}
