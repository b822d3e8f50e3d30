package io.commitlane.cluster;

import io.commitlane.cluster.internal.routing.FrameLimit;
import io.commitlane.cluster.internal.routing.Names;
import io.commitlane.cluster.internal.routing.PendingAsks;
import com.typesafe.config.Config;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.BackupReply;
import io.commitlane.actors.DatabaseProtocol.CheckpointReply;
import io.commitlane.actors.DatabaseProtocol.Command;
import io.commitlane.actors.DatabaseProtocol.CountReply;
import io.commitlane.actors.DatabaseProtocol.FeedReply;
import io.commitlane.actors.DatabaseProtocol.ReadReply;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.ScanReply;
import io.commitlane.actors.DatabaseProtocol.StatsReply;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.RequestId;
import io.commitlane.actors.ScanRange;
import io.commitlane.actors.internal.pipeline.DispatcherFuture;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.pattern.Patterns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Databases spread over a Pekko cluster, one owner node per database: registers {@link
 * ShardedDatabase} with Cluster Sharding on this node and sends it requests from Java code.
 *
 * <pre>{@code
 * DatabaseSharding databases = DatabaseSharding.init(system);     // on every node, at start
 * databases.write("orders", List.of(Mutation.put(key, value)), null, RequestId.random())  // routed to the owner of "orders"
 *     .thenAccept(reply -> ...);                                   // Committed, Conflicted or WriteRefused
 * }</pre>
 *
 * <p>Actors talk to a database directly, in the protocol a local database speaks: {@code
 * databases.entityRef("orders").tell(new DatabaseProtocol.Write(mutations, null, requestId,
 * correlation, replyTo))}. The methods here ask and map a missing reply (after {@code
 * commitlane.cluster.ask-timeout}) to the request family's refusal of {@link Unavailable} with
 * reason {@code NO_REPLY}: retryable, outcome unknown (send a write again with its request id). A
 * request too large for one
 * remote frame throws {@link RequestTooLargeException} before it is sent. The returned stages never
 * fail; they complete on Pekko's default dispatcher, and {@code *Async} stages without an
 * executor run there too. See docs/cluster.md.
 */
public final class DatabaseSharding {
  /** The downing provider this module expects: Pekko's split-brain resolver. */
  public static final String SPLIT_BRAIN_RESOLVER = "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider";
  private static final Logger LOG = LoggerFactory.getLogger(DatabaseSharding.class);
  private static final Duration READY_POLL = Duration.ofMillis(100);
  /** Actor systems whose Up line is registered (once each, however often init is called). */
  private static final Set<ActorSystem<?>> UP_LOGGED = Collections.newSetFromMap(Collections.synchronizedMap(new WeakHashMap<>()));

  private final ActorSystem<?> system;
  private final ClusterSharding sharding;
  private final ClusterSettings settings;
  private final ActorRef<ShardingEnvelope<Command>> region;
  private final Executor executor;
  private final boolean hosts;
  private final DispatcherFuture<Done> ready;
  private final FrameLimit frameLimit;
  /** Correlations of the requests sent here, so that a NO_REPLY names the request it is for. */
  private final AtomicLong correlations = new AtomicLong();
  /** Requests waiting for a reply: answered NO_REPLY if this node's actor system terminates first (its timers stop). */
  private final PendingAsks pending;

  private DatabaseSharding(ActorSystem<?> system, ClusterSharding sharding, ClusterSettings settings,
      ActorRef<ShardingEnvelope<Command>> region, boolean hosts) {
    this.system = system;
    this.sharding = sharding;
    this.settings = settings;
    this.region = region;
    this.hosts = hosts;
    this.executor = system.dispatchers().lookup(DispatcherSelector.defaultDispatcher());
    this.ready = new DispatcherFuture<>(executor);
    this.frameLimit = new FrameLimit(system);
    org.apache.pekko.actor.ActorSystem classic = Adapter.toClassic(system);
    pollReady(org.apache.pekko.cluster.sharding.ClusterSharding.get(classic).shardRegion(ShardedDatabase.TYPE_KEY.name()),
        org.apache.pekko.cluster.Cluster.get(classic).selfAddress());
    this.pending = new PendingAsks(system, executor);
  }

  /** Register databases with Cluster Sharding on this node, with the settings of its config. */
  public static DatabaseSharding init(ActorSystem<?> system) {
    return init(system, ClusterSettings.fromConfig(system.settings().config()));
  }

  /**
   * Register databases with Cluster Sharding on this node (every node calls it once at start; a
   * second call returns a client of the same region). The node hosts databases unless {@code
   * commitlane.cluster.role} names a role it does not have: then it is client-only (a shard
   * region proxy) and sends requests to the nodes that host them. Fails with {@link
   * InvalidSettingsException} for bad {@code commitlane} settings, a hosting node without {@code
   * data-dir}, seed nodes of another actor system name, or a cluster without the split-brain
   * resolver while {@code require-split-brain-resolver} is on.
   */
  public static DatabaseSharding init(ActorSystem<?> system, ClusterSettings settings) {
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(settings, "settings");
    PipelineSettings pipeline = PipelineSettings.fromConfig(system.settings().config());
    Config config = system.settings().config();
    List<SettingError> errors = new ArrayList<>();
    String downing = config.getString("pekko.cluster.downing-provider-class");
    if (settings.requireSplitBrainResolver() && !SPLIT_BRAIN_RESOLVER.equals(downing)) {
      errors.add(new SettingError("pekko.cluster.downing-provider-class", downing,
          "must be \"" + SPLIT_BRAIN_RESOLVER + "\" so that a lost owner is downed and never keeps writing beside its successor"
              + " (or set " + ClusterSettings.ROOT + ".require-split-brain-resolver = off)"));
    }
    for (String seed : config.getStringList("pekko.cluster.seed-nodes")) {
      String seedSystem = seed.replaceFirst("^[a-z]+://", "").replaceFirst("@.*$", "");
      if (!seedSystem.equals(system.name())) {
        errors.add(new SettingError("pekko.cluster.seed-nodes", seed, "names actor system \"" + seedSystem + "\" but this node's"
            + " actor system is \"" + system.name() + "\": a node joins only nodes of its own name. Create the ActorSystem as \""
            + seedSystem + "\" or fix the seed address"));
      }
    }
    boolean hosts = settings.role().map(r -> Cluster.get(system).selfMember().hasRole(r)).orElse(true);
    if (hosts && settings.dataDir() == null) {
      errors.add(new SettingError(ClusterSettings.ROOT + ".data-dir", "", "must be set on a node that hosts databases"
          + settings.role().map(r -> " (this node has role " + r + ")").orElse("") + ": the directory of its databases"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    ClusterSharding sharding = ClusterSharding.get(system);
    ClusterShardingSettings shardingSettings = ClusterShardingSettings.create(system);
    shardingSettings = settings.passivateIdleAfter().isPresent()
        ? shardingSettings.withPassivationStrategy(
            shardingSettings.passivationStrategySettings().withIdleEntityPassivation(settings.passivateIdleAfter().get()))
        : shardingSettings.withNoPassivationStrategy();
    Entity<Command, ShardingEnvelope<Command>> entity =
        Entity.of(ShardedDatabase.TYPE_KEY, ctx -> ShardedDatabase.create(ctx.getEntityId(), settings, pipeline))
            .withStopMessage(ShardedDatabase.Stop.INSTANCE)
            .withSettings(shardingSettings)
            .withEntityProps(DispatcherSelector.fromConfig(settings.entityDispatcher()));
    if (settings.role().isPresent()) {
      entity = entity.withRole(settings.role().get()); // a node without the role gets a proxy
    }
    ActorRef<ShardingEnvelope<Command>> region = sharding.init(entity);
    logWhenUp(system);
    // A request left in a stopping entity's mailbox was never served; its next owner will serve it.
    Commitlane.get(system).answerDeadLetters("/system/sharding/" + ShardedDatabase.TYPE_KEY.name() + "/",
        new Unavailable(UnavailableReason.CLOSING, "the database's entity stopped (moving to another node,"
            + " stopping or passivating) before it read this request; nothing was written. Retry: the next owner will serve it"));
    return new DatabaseSharding(system, sharding, settings, region, hosts);
  }

  /** Says at INFO when this node is Up, and how many members are: the line to look for when a node starts. */
  private static void logWhenUp(ActorSystem<?> system) {
    if (UP_LOGGED.add(system)) {
      org.apache.pekko.cluster.Cluster cluster = org.apache.pekko.cluster.Cluster.get(Adapter.toClassic(system));
      cluster.registerOnMemberUp(() -> {
        long up = 0;
        for (Member m : cluster.state().getMembers()) {
          up += m.status() == MemberStatus.up() ? 1 : 0;
        }
        LOG.info("cluster up ({} members): {} is Up, actor system {}", up, cluster.selfAddress(), system.name());
      });
    }
  }

  /**
   * Completes when this node's requests can reach databases: sharding's coordinator is running
   * and knows this node's region (client-only: knows some hosting region). Requests sent earlier
   * are not lost (the region buffers them), but on a fresh cluster they wait for the coordinator
   * and its state, which can take seconds under load, longer than a short {@code ask-timeout}.
   * Never fails; completes on Pekko's default dispatcher.
   */
  public CompletionStage<Done> whenReady() {
    return ready;
  }

  /** Whether this node hosts databases (false: client-only, see {@code commitlane.cluster.role}). */
  public boolean hostsDatabases() {
    return hosts;
  }

  private void pollReady(org.apache.pekko.actor.ActorRef classicRegion, Address self) {
    Patterns.ask(classicRegion, ShardRegion.getCurrentRegionsInstance(), Duration.ofSeconds(1)).whenCompleteAsync((reply, err) -> {
      if (reply instanceof ShardRegion.CurrentRegions regions
          && (hosts ? regions.getRegions().contains(self) : !regions.getRegions().isEmpty())) {
        LOG.debug("sharded databases ready on {}: the coordinator knows {} region(s)", self, regions.getRegions().size());
        ready.complete(Done.getInstance());
      } else if (!system.whenTerminated().isCompleted()) {
        system.scheduler().scheduleOnce(READY_POLL, () -> pollReady(classicRegion, self), system.executionContext());
      }
    }, executor);
  }

  public ClusterSettings settings() {
    return settings;
  }

  /** This node's shard region of databases (send {@code ShardingEnvelope}s to it). */
  public ActorRef<ShardingEnvelope<Command>> region() {
    return region;
  }

  /** The reference to database {@code name}, wherever it is owned. Throws {@link InvalidRequestException} for a bad name. */
  public EntityRef<Command> entityRef(String name) {
    return sharding.entityRefFor(ShardedDatabase.TYPE_KEY, Names.database(name));
  }

  /**
   * Throws {@link RequestTooLargeException} if {@code request} cannot cross the remote transport in
   * one frame ({@code pekko.remote.artery.advanced.maximum-frame-size} less a margin for headers):
   * the methods here check every write and multi-get; an actor that tells {@link #entityRef} a
   * large request itself checks it here first, since the transport drops what does not fit.
   */
  public void requireFitsOneFrame(String name, Command request) {
    frameLimit.check(name, request);
  }

  /** Commit an atomic batch of puts and removes on database {@code name}. */
  public CompletionStage<WriteReply> write(String name, List<Mutation> mutations) {
    return write(name, mutations, null);
  }

  /** Commit an atomic batch and append {@code log} (may be null) to the database's transaction log. */
  public CompletionStage<WriteReply> write(String name, List<Mutation> mutations, LogEntries log) {
    return write(name, mutations, log, null);
  }

  /**
   * Commit an atomic batch, idempotently: a database that already applied {@code requestId} (may
   * be null) answers with that outcome and applies nothing. Send a write answered {@code
   * NO_REPLY} again with the same id (see {@link DatabaseProtocol.Write}).
   */
  public CompletionStage<WriteReply> write(String name, List<Mutation> mutations, LogEntries log, RequestId requestId) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.Write valid = new DatabaseProtocol.Write(mutations, log, requestId, correlation, deadLetters()); // validate first
    frameLimit.check(name, valid);
    return ask(name, valid::refused, replyTo -> new DatabaseProtocol.Write(valid.mutations(), valid.log(), requestId, correlation, replyTo));
  }

  /** Commit {@code mutations} if every expectation holds on the owner (see {@link DatabaseProtocol.ConditionalWrite}). */
  public CompletionStage<WriteReply> compareAndWrite(String name, List<Expectation> expected, List<Mutation> mutations) {
    return compareAndWrite(name, expected, mutations, null);
  }

  public CompletionStage<WriteReply> compareAndWrite(String name, List<Expectation> expected, List<Mutation> mutations, LogEntries log) {
    return compareAndWrite(name, expected, mutations, log, null);
  }

  /** {@link #compareAndWrite} with a request id (may be null): a repeat is answered with the outcome that wrote. */
  public CompletionStage<WriteReply> compareAndWrite(String name, List<Expectation> expected, List<Mutation> mutations, LogEntries log,
      RequestId requestId) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.ConditionalWrite valid =
        new DatabaseProtocol.ConditionalWrite(expected, mutations, log, requestId, correlation, deadLetters());
    frameLimit.check(name, valid);
    return ask(name, valid::refused, replyTo ->
        new DatabaseProtocol.ConditionalWrite(valid.expected(), valid.mutations(), valid.log(), requestId, correlation, replyTo));
  }

  /** The latest committed value of {@code key} ({@code Values} holds one element, null if absent). */
  public CompletionStage<ReadReply> get(String name, Key key) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.Get valid = new DatabaseProtocol.Get(key, correlation, deadLetters()); // validate first
    return ask(name, valid::refused, replyTo -> new DatabaseProtocol.Get(key, correlation, replyTo));
  }

  /** The values of {@code keys} from one snapshot, in order. */
  public CompletionStage<ReadReply> multiGet(String name, List<Key> keys) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.MultiGet valid = new DatabaseProtocol.MultiGet(keys, correlation, deadLetters());
    frameLimit.check(name, valid);
    List<Key> copy = valid.keys();
    return ask(name, valid::refused, replyTo -> new DatabaseProtocol.MultiGet(copy, correlation, replyTo));
  }

  /**
   * One page of {@code range} of database {@code name}: at most {@code pageSize} entries, fewer
   * when they would not fit one remote frame; {@code after} is null for the first page, else the
   * continuation of the page before (see {@link DatabaseProtocol.Scan}).
   */
  public CompletionStage<ScanReply> scan(String name, ScanRange range, int pageSize, byte[] after) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.Scan valid = new DatabaseProtocol.Scan(range, pageSize, after, correlation, deadLetters());
    frameLimit.check(name, valid);
    return ask(name, valid::refused, replyTo -> new DatabaseProtocol.Scan(valid.range(), pageSize, valid.after(), correlation, replyTo));
  }

  /** The number of keys in {@code range} of database {@code name}: exact, or estimated (see {@link DatabaseProtocol.Count}). */
  public CompletionStage<CountReply> count(String name, ScanRange range, boolean estimate) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.Count valid = new DatabaseProtocol.Count(range, estimate, correlation, deadLetters());
    return ask(name, valid::refused, replyTo -> new DatabaseProtocol.Count(valid.range(), estimate, correlation, replyTo));
  }

  /** Who owns database {@code name}, and its counters (opens it if it is not open). */
  public CompletionStage<StatsReply> stats(String name) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.GetStats valid = new DatabaseProtocol.GetStats(correlation, deadLetters());
    return ask(name, valid::refused, replyTo -> new DatabaseProtocol.GetStats(correlation, replyTo));
  }

  /**
   * A live change feed of log {@code log} of database {@code name}, from after {@code
   * afterPosition} (-1: from the start). Run the reply's {@code feed().getSource()} here. A log
   * the database does not have is refused ({@code UNKNOWN_LOG}); see {@link #changeFeed(String,
   * String, long, boolean)} to create it.
   */
  public CompletionStage<FeedReply> changeFeed(String name, String log, long afterPosition) {
    return changeFeed(name, log, afterPosition, false);
  }

  /**
   * {@link #changeFeed(String, String, long)}, creating the log if the database does not have it
   * when {@code create} is set: for a consumer that starts before the first commit to its log.
   */
  public CompletionStage<FeedReply> changeFeed(String name, String log, long afterPosition, boolean create) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.OpenChangeFeed valid = new DatabaseProtocol.OpenChangeFeed(log, afterPosition, create, correlation,
        deadLetters());
    return ask(name, valid::refused,
        replyTo -> new DatabaseProtocol.OpenChangeFeed(valid.log(), afterPosition, create, correlation, replyTo));
  }

  /**
   * Back up database {@code name} into {@code directory} on its owner's file system (give every
   * hosting node the same path, on storage they all see, if the database may move): see {@link
   * DatabaseProtocol.Backup}. A backup takes longer than a write, so it waits up to {@code
   * timeout} for the reply, not {@code ask-timeout}; past it the reply is {@code NO_REPLY}, and
   * the backup may still complete.
   */
  public CompletionStage<BackupReply> backup(String name, Path directory, Duration timeout) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.Backup valid = new DatabaseProtocol.Backup(directory, correlation, deadLetters());
    return ask(name, valid::refused, positive(timeout),
        replyTo -> new DatabaseProtocol.Backup(valid.directory(), correlation, replyTo));
  }

  /**
   * Take a checkpoint of database {@code name} into {@code target}, a new directory on its owner's
   * file system: see {@link DatabaseProtocol.Checkpoint}. Waits up to {@code timeout}, as {@link
   * #backup} does.
   */
  public CompletionStage<CheckpointReply> checkpoint(String name, Path target, Duration timeout) {
    long correlation = correlations.incrementAndGet();
    DatabaseProtocol.Checkpoint valid = new DatabaseProtocol.Checkpoint(target, correlation, deadLetters());
    return ask(name, valid::refused, positive(timeout),
        replyTo -> new DatabaseProtocol.Checkpoint(valid.target(), correlation, replyTo));
  }

  private static Duration positive(Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the timeout must be positive, was " + timeout);
    }
    return timeout;
  }

  /**
   * Ask database {@code name} the request {@code message} builds; {@code refused} makes the reply
   * that says it was not served, of the request's own family (its {@code refused} method).
   */
  private <R> CompletionStage<R> ask(String name, java.util.function.Function<Refusal, ? extends R> refused,
      Function<ActorRef<R>, Command> message) {
    return ask(name, refused, settings.askTimeout(), message);
  }

  private <R> CompletionStage<R> ask(String name, java.util.function.Function<Refusal, ? extends R> refused, Duration timeout,
      Function<ActorRef<R>, Command> message) {
    return pending.ask(entityRef(name), name, refused, timeout, message);
  }

  private <T> ActorRef<T> deadLetters() {
    return system.deadLetters();
  }
}
