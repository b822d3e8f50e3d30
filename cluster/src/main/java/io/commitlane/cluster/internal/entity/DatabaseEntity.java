package io.commitlane.cluster.internal.entity;

import io.commitlane.cluster.ClusterSettings;
import io.commitlane.cluster.ShardedDatabase;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.PipelineSettings;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.Logger;

/**
 * What every state of one {@link ShardedDatabase} entity shares: its context, the stash that
 * holds requests while it opens, its timers, its name and settings, the blocking dispatcher
 * (opening and closing run there) and this node's address (the owner while the database is open
 * here). Used only on the entity's thread.
 */
public record DatabaseEntity(ActorContext<DatabaseProtocol.Command> context, StashBuffer<DatabaseProtocol.Command> stash,
    TimerScheduler<DatabaseProtocol.Command> timers, String name, ClusterSettings settings, PipelineSettings pipelineSettings,
    Executor blocking, String owner) {

  public static DatabaseEntity of(ActorContext<DatabaseProtocol.Command> context, StashBuffer<DatabaseProtocol.Command> stash,
      TimerScheduler<DatabaseProtocol.Command> timers, String name, ClusterSettings settings, PipelineSettings pipelineSettings) {
    Executor blocking = context.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(ClusterSettings.BLOCKING_DISPATCHER));
    String owner = Cluster.get(context.getSystem()).selfMember().address().toString();
    return new DatabaseEntity(context, stash, timers, name, settings, pipelineSettings, blocking, owner);
  }

  Logger log() {
    return context.getLog();
  }

  /** The database's directory; an {@link io.commitlane.actors.InvalidRequestException} if the name cannot be one. */
  Path dir() {
    return settings.databaseDir(name);
  }

  /** Why this entity refuses a request it will not serve because it stops. */
  Unavailable closing() {
    return new Unavailable(UnavailableReason.CLOSING, "database " + name + " is closing on " + owner
        + " (moving to another node, stopping or passivating); nothing was written. Retry: the next owner will serve it");
  }

  /** Refuse every buffered request with {@code why}. */
  void answerStashed(Refusal why) {
    if (stash.isEmpty()) {
      return;
    }
    stash.forEach(c -> {
      if (c instanceof Request r) {
        r.answer(why);
      }
    });
    stash.clear();
  }

  /** The shard sent {@link ShardedDatabase.Stop} while the entity was in {@code state}. */
  void logStop(String state) {
    context.getLog().debug("database {}: its shard stops it ({})", name, state);
  }
}
