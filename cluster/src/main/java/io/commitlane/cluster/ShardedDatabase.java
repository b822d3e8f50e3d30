package io.commitlane.cluster;

import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.LogAppend;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitlaneException;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.ReadRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.SourceRef;
import org.apache.pekko.stream.javadsl.StreamRefs;

/**
 * One database as a Cluster Sharding entity: the entity id is the database name, and the node
 * that hosts the entity owns the database (opens it under {@code <data-dir>/<name>}, the only
 * writer). Clients on any node send the same typed messages through an {@code EntityRef}
 * ({@link DatabaseSharding} does it for Java callers); messages and replies cross nodes through
 * Jackson CBOR ({@link CborSerializable}).
 *
 * <p><b>Life.</b> The entity starts on the first message, takes the database's {@link
 * OwnerLock} (retrying while a previous owner still holds it, up to {@code open-timeout}) and
 * opens it on the blocking dispatcher, buffering commands meanwhile. On {@link Stop} (sharding
 * sends it on rebalance, on a node's graceful leave and on idle passivation) it refuses new
 * commands with {@link Unavailable} ({@code CLOSING}: nothing written, retry), drains the
 * commits it admitted, releases the database and then the lock, and only then stops, so the
 * shard's next owner opens after this one closed.
 *
 * <p><b>Threads.</b> Transactions are built, and reads served, on the entity's dispatcher
 * ({@code commitlane.cluster.entity-dispatcher}). Commits run on the database's commit
 * executors; replies are sent from the completion dispatcher, without a hop back through the
 * entity.
 */
public final class ShardedDatabase extends AbstractBehavior<ShardedDatabase.Command> {
  /** The entity type of databases. */
  public static final EntityTypeKey<Command> TYPE_KEY = EntityTypeKey.create(Command.class, "commitlane-database");

  // ---- the protocol -------------------------------------------------------------------------

  /** What a sharded database accepts. The public messages cross nodes; the private ones are its own. */
  public sealed interface Command permits Write, CompareAndWrite, Get, MultiGet, GetStats, OpenChangeFeed, Stop, OpenResult,
      RetryOpen, Closed {}

  /**
   * Commit an atomic batch of puts and removes (and a transaction-log record, if {@code log} is
   * not null). Blind writes: use {@link CompareAndWrite} when they depend on what is stored.
   */
  public record Write(List<Mutation> mutations, LogEntries log, ActorRef<WriteReply> replyTo) implements Command, CborSerializable {
    public Write {
      mutations = copy(mutations, "Write.mutations");
      if (mutations.isEmpty() && log == null) {
        throw new InvalidRequestException("a Write needs at least one mutation or a log record");
      }
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /**
   * A conditional commit: on the owner, inside one transaction, read every expected key; if each
   * holds its expected value (or is absent, for a null value), apply the mutations and commit.
   * The reads are validated at commit, so optimistic concurrency holds across nodes. A validation
   * conflict is retried on the owner ({@code conflict-retries}) while the expectations hold; an
   * expectation that does not hold answers {@link Conflicted} with what the keys hold now.
   * Retrying one after {@code NO_REPLY} is safe: if the first attempt was applied, its
   * expectations no longer hold.
   */
  public record CompareAndWrite(List<Expectation> expected, List<Mutation> mutations, LogEntries log, ActorRef<WriteReply> replyTo)
      implements Command, CborSerializable {
    public CompareAndWrite {
      expected = copy(expected, "CompareAndWrite.expected");
      mutations = copy(mutations, "CompareAndWrite.mutations");
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /** Read the latest committed value of a key. */
  public record Get(Key key, ActorRef<ReadReply> replyTo) implements Command, CborSerializable {
    public Get {
      if (key == null) {
        throw new InvalidRequestException("a Get needs a key");
      }
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /** Read several keys from one snapshot; the values come back in the order of the keys. */
  public record MultiGet(List<Key> keys, ActorRef<ReadReply> replyTo) implements Command, CborSerializable {
    public MultiGet {
      keys = copy(keys, "MultiGet.keys");
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /** Ask who owns the database and for its counters. */
  public record GetStats(ActorRef<StatsReply> replyTo) implements Command, CborSerializable {
    public GetStats {
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /**
   * Open a live change feed of a transaction log: committed records after {@code afterPosition}
   * (from the start when negative), then new ones as they commit. The reply carries a {@link
   * SourceRef}; run its source on any node within {@code pekko.stream.materializer.stream-ref.
   * subscription-timeout}. The feed fails when the database closes on its owner (moved, stopped,
   * passivated): open it again from the last position handled.
   */
  public record OpenChangeFeed(String log, long afterPosition, ActorRef<FeedReply> replyTo) implements Command, CborSerializable {
    public OpenChangeFeed {
      Names.log(log);
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /** Sharding's stop message: drain, close, release, stop. Sent locally by the shard. */
  public enum Stop implements Command, CborSerializable { INSTANCE }

  /** The reply to {@link Write} and {@link CompareAndWrite}. */
  public sealed interface WriteReply extends CborSerializable permits Committed, Conflicted, Unavailable, Failed {
    /** Whether sending the same request again may succeed. */
    boolean retryable();
  }

  /** The reply to {@link Get} and {@link MultiGet}. */
  public sealed interface ReadReply extends CborSerializable permits Values, Unavailable, Failed {}

  /** The reply to {@link GetStats}. */
  public sealed interface StatsReply extends CborSerializable permits DatabaseStats, Unavailable, Failed {}

  /** The reply to {@link OpenChangeFeed}. */
  public sealed interface FeedReply extends CborSerializable permits FeedOpened, Unavailable, Failed {}

  /**
   * Written (and, with {@code fsync} log durability, synced) on the owner.
   *
   * @param stamp where the commit stands in the database's history
   * @param logPosition the log record's position, or -1 when the commit logged nothing
   */
  public record Committed(CommitStamp stamp, long logPosition) implements WriteReply {
    @Override
    public boolean retryable() {
      return false;
    }
  }

  /**
   * Nothing was written: a conditional commit's expectations did not hold, or validation found a
   * conflicting commit. Retryable after reading again.
   *
   * @param actual for each expectation that did not hold, what the key holds now (usable as the
   *     next attempt's expectation); empty when validation failed with conflict retries used up
   */
  public record Conflicted(List<Expectation> actual) implements WriteReply {
    public Conflicted {
      actual = actual == null ? List.of() : List.copyOf(actual);
    }

    @Override
    public boolean retryable() {
      return true;
    }
  }

  /** Why the owner did not serve a request. */
  public enum UnavailableReason {
    /** The database is closing on this owner (moving, stopping, passivating): nothing written. */
    CLOSING,
    /** The previous owner still held the database past {@code open-timeout}: nothing written. */
    PREVIOUS_OWNER_HOLDS,
    /** Too many commands arrived while the database opened: nothing written. */
    BUFFER_FULL,
    /** No reply within {@code ask-timeout} (owner unreachable, gone, or slow): the outcome is unknown. */
    NO_REPLY
  }

  /**
   * The owner could not serve the request. Always retryable; {@link #outcomeKnown()} says whether
   * the request certainly did nothing.
   */
  public record Unavailable(UnavailableReason reason, String message) implements WriteReply, ReadReply, StatsReply, FeedReply {
    public Unavailable {
      Objects.requireNonNull(reason, "reason");
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

  /** What kind of failure a {@link Failed} reply reports. */
  public enum FailureReason {
    /** The database's commit queue was full; nothing written. */
    OVERLOADED,
    /** The request was malformed; nothing written. */
    INVALID_REQUEST,
    /** Storage or log failure on the owner (see the message). */
    STORAGE
  }

  /** The request failed on the owner. */
  public record Failed(FailureReason reason, String message, boolean retryable) implements WriteReply, ReadReply, StatsReply, FeedReply {
    public Failed {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Values read, in the order of the keys asked for; null for an absent key. */
  public record Values(List<byte[]> values) implements ReadReply {
    public Values {
      values = Collections.unmodifiableList(new ArrayList<>(values == null ? List.of() : values));
    }
  }

  /** A change feed ready to be run on the asking node. */
  public record FeedOpened(SourceRef<ChangeRecord> feed) implements FeedReply {
    public FeedOpened {
      Objects.requireNonNull(feed, "feed");
    }
  }

  // ---- internal messages --------------------------------------------------------------------

  /** An open attempt finished: the database is in the open slot, or the lock was busy, or it failed. */
  private record OpenResult(boolean busy, Throwable failure) implements Command {}

  private enum RetryOpen implements Command { INSTANCE }

  private enum Closed implements Command { INSTANCE }

  /** The database open on this owner and the lock that makes it the only one. */
  private record Owned(CommitlaneDatabase db, OwnerLock lock) {
    /** Drain and release the database, then the lock. The stage never fails. */
    CompletableFuture<Void> close(Executor blocking) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      CompletableFuture<?> closed;
      try {
        closed = db.closeAsync().toCompletableFuture();
      } catch (RuntimeException e) {
        closed = CompletableFuture.failedFuture(e);
      }
      closed.whenCompleteAsync((ok, err) -> {
        lock.close();
        done.complete(null);
      }, blocking);
      return done;
    }
  }

  private enum State {
    OPENING,
    OPEN,
    CLOSING,
    /** The open failed or timed out: answer with {@code givenUp} until the shard's stop after our Passivate. */
    GIVEN_UP
  }

  // ---- the behavior -------------------------------------------------------------------------

  private final String name;
  private final ClusterSettings settings;
  private final PipelineSettings pipelineSettings;
  private final StashBuffer<Command> stash;
  private final TimerScheduler<Command> timers;
  private final ActorRef<ClusterSharding.ShardCommand> shard;
  private final Executor blocking;
  private final String owner;
  private final long openDeadline;
  /** Where a finished open attempt leaves the database: taken by this actor, or by PostStop if it stopped first. */
  private final AtomicReference<Owned> openSlot = new AtomicReference<>();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private State state = State.OPENING;
  private boolean attemptRunning;
  private boolean stopRequested;
  private boolean lockBusyLogged;
  private Owned owned;
  private Object givenUp;
  private Materializer materializer;

  private ShardedDatabase(ActorContext<Command> ctx, StashBuffer<Command> stash, TimerScheduler<Command> timers,
      ActorRef<ClusterSharding.ShardCommand> shard, String name, ClusterSettings settings, PipelineSettings pipelineSettings) {
    super(ctx);
    this.shard = shard;
    this.name = name;
    this.settings = settings;
    this.pipelineSettings = pipelineSettings;
    this.stash = stash;
    this.timers = timers;
    this.blocking = ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(ClusterSettings.BLOCKING_DISPATCHER));
    this.owner = Cluster.get(ctx.getSystem()).selfMember().address().toString();
    this.openDeadline = System.nanoTime() + settings.openTimeout().toNanos();
  }

  /**
   * The entity behavior for database {@code name}, hosted by {@code shard}; {@link
   * DatabaseSharding#init} registers it.
   */
  public static Behavior<Command> create(String name, ActorRef<ClusterSharding.ShardCommand> shard, ClusterSettings settings,
      PipelineSettings pipelineSettings) {
    return Behaviors.withStash(settings.openBuffer(), stash -> Behaviors.withTimers(timers -> Behaviors.setup(ctx -> {
      ShardedDatabase entity = new ShardedDatabase(ctx, stash, timers, shard, name, settings, pipelineSettings);
      entity.startOpen();
      return entity;
    })));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Write.class, this::onWrite)
        .onMessage(CompareAndWrite.class, this::onCompareAndWrite)
        .onMessage(Get.class, this::onGet)
        .onMessage(MultiGet.class, this::onMultiGet)
        .onMessage(GetStats.class, this::onGetStats)
        .onMessage(OpenChangeFeed.class, this::onOpenChangeFeed)
        .onMessage(Stop.class, s -> onStop())
        .onMessage(OpenResult.class, this::onOpenResult)
        .onMessage(RetryOpen.class, r -> onRetryOpen())
        .onMessage(Closed.class, c -> Behaviors.stopped())
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  // ---- opening and closing ------------------------------------------------------------------

  private void startOpen() {
    attemptRunning = true;
    Path dir;
    try {
      dir = settings.databaseDir(name);
    } catch (InvalidRequestException e) {
      getContext().pipeToSelf(CompletableFuture.failedFuture(e), (ok, err) -> new OpenResult(false, err));
      return;
    }
    ActorSystem<?> system = getContext().getSystem(); // the context belongs to the actor's thread, not the blocking one
    CompletableFuture<Boolean> attempt = CompletableFuture.supplyAsync(() -> {
      OwnerLock lock = OwnerLock.tryAcquire(dir, owner);
      if (lock == null) {
        return false;
      }
      CommitlaneDatabase db;
      try {
        db = CommitlaneDatabase.open(system, dir, pipelineSettings);
      } catch (RuntimeException | Error e) {
        lock.close();
        throw e;
      }
      openSlot.set(new Owned(db, lock));
      if (stopped.get()) {
        closeLeftover(); // the entity stopped while this attempt ran: nobody else will close it
      }
      return true;
    }, blocking);
    getContext().pipeToSelf(attempt, (ok, err) -> new OpenResult(err == null && !ok, unwrap(err)));
  }

  private Behavior<Command> onOpenResult(OpenResult r) {
    attemptRunning = false;
    if (r.failure() != null) {
      getContext().getLog().error("cannot open database {} on {}", name, owner, r.failure());
      Failed failed = r.failure() instanceof InvalidRequestException e
          ? new Failed(FailureReason.INVALID_REQUEST, e.getMessage(), false)
          : new Failed(FailureReason.STORAGE, "cannot open database " + name + " on " + owner + ": " + r.failure(), true);
      return giveUp(failed);
    }
    if (r.busy()) {
      if (stopRequested) {
        answerStashed(closing());
        return Behaviors.stopped();
      }
      if (System.nanoTime() - openDeadline < 0) {
        if (!lockBusyLogged) {
          lockBusyLogged = true;
          getContext().getLog().info("database {} is held by its previous owner {}; retrying every {} for up to {}", name,
              OwnerLock.lastOwner(settings.databaseDir(name)), settings.openRetryInterval(), settings.openTimeout());
        }
        timers.startSingleTimer(RetryOpen.INSTANCE, settings.openRetryInterval());
        return this;
      }
      Path dir = settings.databaseDir(name);
      String holder = OwnerLock.lastOwner(dir);
      getContext().getLog().warn("database {} is still held by its previous owner {} after {}; answering PREVIOUS_OWNER_HOLDS",
          name, holder, settings.openTimeout());
      return giveUp(new Unavailable(UnavailableReason.PREVIOUS_OWNER_HOLDS, "database " + name + " is still held by its previous owner "
          + holder + " (" + dir.resolve(OwnerLock.FILE_NAME) + ") after " + settings.openTimeout()
          + "; nothing was written. Retry later: the next request tries to open it again"));
    }
    owned = openSlot.getAndSet(null);
    if (owned == null) {
      return Behaviors.stopped(); // PostStop already took it (cannot happen while this actor runs)
    }
    getContext().getLog().info("database {} opened on {} as owner epoch {}", name, owner, owned.lock().epoch());
    state = State.OPEN;
    if (stopRequested) {
      return beginClose();
    }
    return stash.unstashAll(this);
  }

  /**
   * Answer what waits, and what comes, with {@code reply} until the shard stops this entity. Passivating
   * (rather than stopping at once) lets the shard buffer commands that race with the stop and hand
   * them to the next incarnation, which tries the open again.
   */
  private Behavior<Command> giveUp(Object reply) {
    state = State.GIVEN_UP;
    givenUp = reply;
    if (!stopRequested) {
      // Before answering: a client that retries on this answer then reaches the shard after the
      // Passivate, so the shard buffers its retry for the next incarnation.
      shard.tell(new ClusterSharding.Passivate<>(getContext().getSelf()));
    }
    answerStashed(reply);
    return stopRequested ? Behaviors.stopped() : this;
  }

  private Behavior<Command> onRetryOpen() {
    if (state == State.OPENING && !attemptRunning && !stopRequested) {
      startOpen();
    }
    return this;
  }

  private Behavior<Command> onStop() {
    switch (state) {
      case OPEN:
        return beginClose();
      case OPENING:
        stopRequested = true;
        if (!attemptRunning) { // waiting to retry a busy lock: nothing is open
          timers.cancel(RetryOpen.INSTANCE);
          answerStashed(closing());
          return Behaviors.stopped();
        }
        return this; // the attempt's result closes what it opened
      case GIVEN_UP:
        return Behaviors.stopped();
      default:
        return this;
    }
  }

  private Behavior<Command> beginClose() {
    state = State.CLOSING;
    answerStashed(closing());
    getContext().getLog().info("closing database {} on {} (owner epoch {}): draining admitted commits", name, owner, owned.lock().epoch());
    Owned closing = owned;
    getContext().pipeToSelf(closing.close(blocking), (ok, err) -> Closed.INSTANCE);
    return this;
  }

  /**
   * Stopped without finishing a close: by a forced stop after the handoff timeout, by the shard
   * failing, or by the actor system terminating. Close in the background; the lock goes only
   * after the database, and at the latest when the actor system has terminated (by then every
   * database supervisor has released its handle).
   */
  private Behavior<Command> onPostStop() {
    stopped.set(true);
    closeLeftover();
    answerStashed(closing());
    Owned open = owned;
    owned = null;
    if (open != null && state == State.OPEN) {
      open.close(blocking);
    }
    if (open != null && open.lock().isHeld()) {
      // A close still runs and releases the lock when done; if the system terminates first, every
      // database supervisor has released its handle by then, so the lock can go.
      getContext().getSystem().getWhenTerminated().whenCompleteAsync((ok, err) -> open.lock().close(), Runnable::run);
    }
    return this;
  }

  /** Close a database an attempt opened after this entity stopped (at most one caller gets it). */
  private void closeLeftover() {
    Owned leftover = openSlot.getAndSet(null);
    if (leftover != null) {
      leftover.close(blocking);
    }
  }

  private void answerStashed(Object reply) {
    if (stash.isEmpty()) {
      return;
    }
    stash.forEach(c -> replyTo(c, reply));
    stash.clear();
  }

  private Unavailable closing() {
    return new Unavailable(UnavailableReason.CLOSING, "database " + name + " is closing on " + owner
        + " (moving to another node, stopping or passivating); nothing was written. Retry: the next owner will serve it");
  }

  /** Whether {@code c} can be served now; otherwise buffers it (opening) or answers it (closing). */
  private boolean isOpenFor(Command c) {
    switch (state) {
      case OPEN:
        return true;
      case OPENING:
        if (stash.isFull()) {
          replyTo(c, new Unavailable(UnavailableReason.BUFFER_FULL, "database " + name + " is opening on " + owner + " and "
              + stash.capacity() + " commands are waiting (commitlane.cluster.open-buffer); nothing was written. Retry later"));
        } else {
          stash.stash(c);
        }
        return false;
      case GIVEN_UP:
        replyTo(c, givenUp);
        return false;
      default:
        replyTo(c, closing());
        return false;
    }
  }

  @SuppressWarnings("unchecked")
  private static void replyTo(Command c, Object reply) {
    ActorRef<Object> to;
    if (c instanceof Write w) {
      to = (ActorRef<Object>) (ActorRef<?>) w.replyTo();
    } else if (c instanceof CompareAndWrite w) {
      to = (ActorRef<Object>) (ActorRef<?>) w.replyTo();
    } else if (c instanceof Get g) {
      to = (ActorRef<Object>) (ActorRef<?>) g.replyTo();
    } else if (c instanceof MultiGet g) {
      to = (ActorRef<Object>) (ActorRef<?>) g.replyTo();
    } else if (c instanceof GetStats g) {
      to = (ActorRef<Object>) (ActorRef<?>) g.replyTo();
    } else if (c instanceof OpenChangeFeed f) {
      to = (ActorRef<Object>) (ActorRef<?>) f.replyTo();
    } else {
      return; // internal messages and Stop have nobody to answer
    }
    to.tell(reply);
  }

  // ---- serving ------------------------------------------------------------------------------

  private Behavior<Command> onWrite(Write w) {
    if (!isOpenFor(w)) {
      return this;
    }
    Owned o = owned;
    Transaction txn;
    try {
      txn = o.db().begin();
      apply(o, txn, w.mutations(), w.log());
    } catch (RuntimeException e) {
      w.replyTo().tell(writeFailure(e));
      return this;
    }
    o.db().commit(txn).whenComplete((r, err) -> w.replyTo().tell(err == null ? committed(o, r) : writeFailure(unwrap(err))));
    return this;
  }

  private Behavior<Command> onCompareAndWrite(CompareAndWrite c) {
    if (isOpenFor(c)) {
      attempt(owned, c, 1, settings.conflictRetries());
    }
    return this;
  }

  /**
   * One attempt of a conditional commit. The first runs on the entity; a retry after a validation
   * conflict runs on the completion dispatcher (it touches only the thread-safe database).
   */
  private static void attempt(Owned o, CompareAndWrite c, int attempt, int retries) {
    Transaction txn = null;
    try {
      txn = o.db().begin();
      List<Expectation> actual = new ArrayList<>();
      for (Expectation e : c.expected()) {
        byte[] now = txn.get(store(o.db().storage(), e.store()), e.key()); // tracked: validated at commit
        if (!Arrays.equals(now, e.value())) {
          actual.add(new Expectation(e.store(), e.key(), now));
        }
      }
      if (!actual.isEmpty()) {
        txn.abort();
        c.replyTo().tell(new Conflicted(actual));
        return;
      }
      apply(o, txn, c.mutations(), c.log());
    } catch (RuntimeException e) {
      if (txn != null) {
        txn.abort();
      }
      c.replyTo().tell(writeFailure(e));
      return;
    }
    o.db().commit(txn).whenComplete((r, err) -> {
      Throwable cause = unwrap(err);
      if (cause instanceof ConflictException && attempt <= retries) {
        attempt(o, c, attempt + 1, retries);
      } else {
        c.replyTo().tell(cause == null ? committed(o, r) : writeFailure(cause));
      }
    });
  }

  private Behavior<Command> onGet(Get g) {
    if (!isOpenFor(g)) {
      return this;
    }
    try {
      Database db = owned.db().storage();
      Store s = existingStore(db, g.key().store());
      g.replyTo().tell(new Values(Collections.singletonList(s == null ? null : db.get(s, g.key().key()))));
    } catch (RuntimeException e) {
      g.replyTo().tell(readFailure(e));
    }
    return this;
  }

  private Behavior<Command> onMultiGet(MultiGet g) {
    if (!isOpenFor(g)) {
      return this;
    }
    Database db = owned.db().storage();
    try (Transaction snapshot = db.begin()) {
      List<byte[]> values = new ArrayList<>(g.keys().size());
      for (Key k : g.keys()) {
        Store s = existingStore(db, k.store());
        values.add(s == null ? null : snapshot.getUntracked(s, k.key()));
      }
      g.replyTo().tell(new Values(values));
    } catch (RuntimeException e) {
      g.replyTo().tell(readFailure(e));
    }
    return this;
  }

  private Behavior<Command> onGetStats(GetStats g) {
    if (isOpenFor(g)) {
      g.replyTo().tell(DatabaseStats.of(name, owner, owned.lock().epoch(), owned.db().stats()));
    }
    return this;
  }

  private Behavior<Command> onOpenChangeFeed(OpenChangeFeed f) {
    if (!isOpenFor(f)) {
      return this;
    }
    try {
      if (materializer == null) {
        materializer = Materializer.createMaterializer(getContext()); // feeds stop with this entity
      }
      ReadRequest from = f.afterPosition() < 0 ? ReadRequest.fromStart() : ReadRequest.fromPosition(f.afterPosition()).exclusive();
      SourceRef<ChangeRecord> ref = ChangeFeed.live(owned.db(), f.log(), from)
          .map(ChangeRecord::of)
          .runWith(StreamRefs.sourceRef(), materializer);
      f.replyTo().tell(new FeedOpened(ref));
    } catch (RuntimeException e) {
      f.replyTo().tell((FeedReply) failure(e));
    }
    return this;
  }

  // ---- helpers ------------------------------------------------------------------------------

  private static void apply(Owned o, Transaction txn, List<Mutation> mutations, LogEntries log) {
    try {
      Database db = o.db().storage();
      for (Mutation m : mutations) {
        if (m.value() == null) {
          txn.remove(store(db, m.store()), m.key());
        } else {
          txn.put(store(db, m.store()), m.key(), m.value());
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

  /** The store to write or validate (created on first use). */
  private static Store store(Database db, String name) {
    return name == null ? db.defaultStore() : db.store(name);
  }

  /** The store to read, or null when it does not exist (reads create nothing). */
  private static Store existingStore(Database db, String name) {
    return name == null ? db.defaultStore() : db.storeNames().contains(name) ? db.store(name) : null;
  }

  private static Committed committed(Owned o, CommitResult r) {
    return new Committed(new CommitStamp(o.lock().epoch(), r.version()), LogAppend.of(r).map(LogAppend::position).orElse(-1L));
  }

  private static WriteReply writeFailure(Throwable e) {
    if (e instanceof ConflictException) {
      return new Conflicted(List.of());
    }
    return (WriteReply) failure(e);
  }

  private static ReadReply readFailure(Throwable e) {
    return (ReadReply) failure(e);
  }

  /** A typed reply for a failure on the owner: an {@link Unavailable} or a {@link Failed}. */
  private static Object failure(Throwable e) {
    if (e instanceof DatabaseClosedException) {
      return new Unavailable(UnavailableReason.CLOSING, "the database closed on its owner before the request ran; nothing was written."
          + " Retry: the next owner will serve it");
    }
    if (e instanceof CommitQueueFullException q) {
      return new Failed(FailureReason.OVERLOADED, q.getMessage(), true);
    }
    if (e instanceof InvalidRequestException || e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
      return new Failed(FailureReason.INVALID_REQUEST, String.valueOf(e.getMessage()), false);
    }
    boolean retryable = e instanceof CommitlaneException c && c.isRetryable();
    return new Failed(FailureReason.STORAGE, e.toString(), retryable);
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
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
