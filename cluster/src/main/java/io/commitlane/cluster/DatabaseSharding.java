package io.commitlane.cluster;

import io.commitlane.actors.PipelineSettings;
import io.commitlane.cluster.ShardedDatabase.Command;
import io.commitlane.cluster.ShardedDatabase.FeedReply;
import io.commitlane.cluster.ShardedDatabase.ReadReply;
import io.commitlane.cluster.ShardedDatabase.StatsReply;
import io.commitlane.cluster.ShardedDatabase.Unavailable;
import io.commitlane.cluster.ShardedDatabase.UnavailableReason;
import io.commitlane.cluster.ShardedDatabase.WriteReply;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.japi.function.Function;

/**
 * Databases spread over a Pekko cluster, one owner node per database: registers {@link
 * ShardedDatabase} with Cluster Sharding on this node and sends it requests from Java code.
 *
 * <pre>{@code
 * DatabaseSharding databases = DatabaseSharding.init(system);     // on every node, at start
 * databases.write("orders", List.of(Mutation.put(key, value)))    // routed to the owner of "orders"
 *     .thenAccept(reply -> ...);                                   // Committed, Conflicted, Unavailable or Failed
 * }</pre>
 *
 * <p>Actors talk to a database directly: {@code databases.entityRef("orders").tell(new
 * ShardedDatabase.Write(mutations, null, replyTo))}. The methods here ask and map a missing reply
 * (after {@code commitlane.cluster.ask-timeout}) to {@link Unavailable} with reason {@code
 * NO_REPLY}: retryable, outcome unknown. The returned stages never fail; they complete on Pekko's
 * default dispatcher, and {@code *Async} stages without an executor run there too.
 */
public final class DatabaseSharding {
  /** The downing provider this module expects: Pekko's split-brain resolver. */
  public static final String SPLIT_BRAIN_RESOLVER = "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider";

  private final ActorSystem<?> system;
  private final ClusterSharding sharding;
  private final ClusterSettings settings;
  private final ActorRef<ShardingEnvelope<Command>> region;
  private final Executor executor;
  /** Requests waiting for a reply: answered NO_REPLY if this node's actor system terminates first (its timers stop). */
  private final Set<Pending<?>> pending = ConcurrentHashMap.newKeySet();

  private DatabaseSharding(ActorSystem<?> system, ClusterSharding sharding, ClusterSettings settings,
      ActorRef<ShardingEnvelope<Command>> region) {
    this.system = system;
    this.sharding = sharding;
    this.settings = settings;
    this.region = region;
    this.executor = system.dispatchers().lookup(DispatcherSelector.defaultDispatcher());
    system.getWhenTerminated().whenCompleteAsync((done, err) -> {
      for (Pending<?> p : pending) {
        p.noReply("this node's actor system terminated before the reply came");
      }
    }, Runnable::run);
  }

  /** Register databases with Cluster Sharding on this node, with the settings of its config. */
  public static DatabaseSharding init(ActorSystem<?> system) {
    return init(system, ClusterSettings.fromConfig(system.settings().config()));
  }

  /**
   * Register databases with Cluster Sharding on this node (every node that may own databases
   * calls it once at start; a second call returns a client of the same region). Fails with
   * {@link InvalidSettingsException} for bad {@code commitlane} settings, or when the cluster
   * does not use the split-brain resolver and {@code require-split-brain-resolver} is on.
   */
  public static DatabaseSharding init(ActorSystem<?> system, ClusterSettings settings) {
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(settings, "settings");
    PipelineSettings pipeline = PipelineSettings.fromConfig(system.settings().config());
    String downing = system.settings().config().getString("pekko.cluster.downing-provider-class");
    if (settings.requireSplitBrainResolver() && !SPLIT_BRAIN_RESOLVER.equals(downing)) {
      throw new InvalidSettingsException(List.of(new SettingError("pekko.cluster.downing-provider-class", downing,
          "must be \"" + SPLIT_BRAIN_RESOLVER + "\" so that a lost owner is downed and never keeps writing beside its successor"
              + " (or set " + ClusterSettings.ROOT + ".require-split-brain-resolver = off)")));
    }
    ClusterSharding sharding = ClusterSharding.get(system);
    ClusterShardingSettings shardingSettings = ClusterShardingSettings.create(system);
    shardingSettings = settings.passivateIdleAfter().isPresent()
        ? shardingSettings.withPassivationStrategy(
            shardingSettings.passivationStrategySettings().withIdleEntityPassivation(settings.passivateIdleAfter().get()))
        : shardingSettings.withNoPassivationStrategy();
    ActorRef<ShardingEnvelope<Command>> region = sharding.init(
        Entity.of(ShardedDatabase.TYPE_KEY, ctx -> ShardedDatabase.create(ctx.getEntityId(), ctx.getShard(), settings, pipeline))
            .withStopMessage(ShardedDatabase.Stop.INSTANCE)
            .withSettings(shardingSettings)
            .withEntityProps(DispatcherSelector.fromConfig(settings.entityDispatcher())));
    return new DatabaseSharding(system, sharding, settings, region);
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

  /** Commit an atomic batch of puts and removes on database {@code name}. */
  public CompletionStage<WriteReply> write(String name, List<Mutation> mutations) {
    return write(name, mutations, null);
  }

  /** Commit an atomic batch and append {@code log} (may be null) to the database's transaction log. */
  public CompletionStage<WriteReply> write(String name, List<Mutation> mutations, LogEntries log) {
    ShardedDatabase.Write valid = new ShardedDatabase.Write(mutations, log, deadLetters()); // validate before sending
    return ask(name, replyTo -> new ShardedDatabase.Write(valid.mutations(), valid.log(), replyTo));
  }

  /** Commit {@code mutations} if every expectation holds on the owner (see {@link ShardedDatabase.CompareAndWrite}). */
  public CompletionStage<WriteReply> compareAndWrite(String name, List<Expectation> expected, List<Mutation> mutations) {
    return compareAndWrite(name, expected, mutations, null);
  }

  public CompletionStage<WriteReply> compareAndWrite(String name, List<Expectation> expected, List<Mutation> mutations, LogEntries log) {
    ShardedDatabase.CompareAndWrite valid = new ShardedDatabase.CompareAndWrite(expected, mutations, log, deadLetters());
    return ask(name, replyTo -> new ShardedDatabase.CompareAndWrite(valid.expected(), valid.mutations(), valid.log(), replyTo));
  }

  /** The latest committed value of {@code key} ({@code Values} holds one element, null if absent). */
  public CompletionStage<ReadReply> get(String name, Key key) {
    Objects.requireNonNull(key, "key");
    return ask(name, replyTo -> new ShardedDatabase.Get(key, replyTo));
  }

  /** The values of {@code keys} from one snapshot, in order. */
  public CompletionStage<ReadReply> multiGet(String name, List<Key> keys) {
    List<Key> copy = new ShardedDatabase.MultiGet(keys, deadLetters()).keys();
    return ask(name, replyTo -> new ShardedDatabase.MultiGet(copy, replyTo));
  }

  /** Who owns database {@code name}, and its counters (opens it if it is not open). */
  public CompletionStage<StatsReply> stats(String name) {
    return ask(name, ShardedDatabase.GetStats::new);
  }

  /**
   * A live change feed of log {@code log} of database {@code name}, from after {@code
   * afterPosition} (-1: from the start). Run the reply's {@code feed().getSource()} here.
   */
  public CompletionStage<FeedReply> changeFeed(String name, String log, long afterPosition) {
    Names.log(log);
    return ask(name, replyTo -> new ShardedDatabase.OpenChangeFeed(log, afterPosition, replyTo));
  }

  private <R> CompletionStage<R> ask(String name, Function<ActorRef<R>, Command> message) {
    EntityRef<Command> ref = entityRef(name);
    Duration timeout = settings.askTimeout();
    Pending<R> result = new Pending<>(name, timeout);
    pending.add(result);
    try {
      // An explicit executor: Pekko's ask stage would otherwise run this on the common pool.
      ref.<R>ask(message, timeout).whenCompleteAsync((reply, err) -> {
        if (err == null) {
          result.complete(reply);
        } else {
          result.noReply(err.getClass().getSimpleName());
        }
      }, executor);
    } catch (RuntimeException e) {
      result.noReply(e.toString()); // e.g. this node is shutting down and its scheduler is closed
    }
    if (system.whenTerminated().isCompleted()) {
      result.noReply("this node's actor system has terminated");
    }
    return result;
  }

  /** A request's future: completed by the reply, by the ask timeout, or by this node's termination. */
  private final class Pending<R> extends DispatcherFuture<R> {
    private final String name;
    private final Duration timeout;

    Pending(String name, Duration timeout) {
      super(executor);
      this.name = name;
      this.timeout = timeout;
      whenComplete((r, e) -> pending.remove(this));
    }

    @SuppressWarnings("unchecked")
    void noReply(String why) {
      complete((R) new Unavailable(UnavailableReason.NO_REPLY, "no reply from the owner of database " + name + " within " + timeout
          + " (" + why + "): the owner may be unreachable, gone or moving. The outcome is unknown: retry a conditional commit"
          + " safely, or read before retrying a blind write"));
    }
  }

  private <T> ActorRef<T> deadLetters() {
    return system.deadLetters();
  }
}
