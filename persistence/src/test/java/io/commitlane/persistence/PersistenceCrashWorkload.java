package io.commitlane.persistence;

import io.commitlane.persistence.javadsl.CommitlaneDurableStateStore;
import io.commitlane.testkit.CrashWorkload;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.state.DurableStateStoreRegistry;

/**
 * Runs in the JVM the crash harness kills: event-sourced entities persisting without pause (persist and persistAll,
 * snapshots) and durable-state objects upserted revision after revision, each acknowledgement reported the moment
 * Pekko confirms it (a persist handler ran; an upsert's stage completed). Arguments: {@code append=serialized |
 * leaderless | actor}, {@code wal=on | off}, {@code entities=N}, {@code states=N}.
 */
public final class PersistenceCrashWorkload implements CrashWorkload {
  static String config(Path db, String append, String wal) {
    return """
        commitlane.txlog.append = %s
        commitlane-persistence.wal = %s
        """.formatted(append, wal);
  }

  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    Map<String, String> o = CrashWorkload.options(args);
    int entities = Integer.parseInt(o.getOrDefault("entities", "8"));
    int states = Integer.parseInt(o.getOrDefault("states", "4"));
    // The states start upserting once an entity's first event is acknowledged: otherwise, on a busy machine, they can
    // use up every acknowledgement before the entities have recovered, and the kill would test no event.
    java.util.concurrent.CompletableFuture<Void> firstEvent = new java.util.concurrent.CompletableFuture<>();
    ActorSystem<Void> system = ActorSystem.create(Behaviors.setup(ctx -> {
      for (int i = 0; i < entities; i++) {
        ctx.spawn(CrashEntity.create("entity-" + i, true, w -> {
          reporter.acknowledged("event:" + w.id() + ":" + w.lastSequenceNr() + ":" + w.events());
          firstEvent.complete(null);
        }), "entity-" + i);
      }
      return Behaviors.empty();
    }), "crash", PluginSystem.config(dir.resolve("db"), config(dir, o.get("append"), o.get("wal"))));
    @SuppressWarnings("unchecked")
    CommitlaneDurableStateStore<Object> store = DurableStateStoreRegistry.get(system.classicSystem())
        .getDurableStateStoreFor(CommitlaneDurableStateStore.class, CommitlaneDurableStateStore.IDENTIFIER);
    firstEvent.join();
    for (int i = 0; i < states; i++) {
      upsert(store, "state-" + i, 1, reporter);
    }
    system.getWhenTerminated().toCompletableFuture().join();  // runs until killed
  }

  private static void upsert(CommitlaneDurableStateStore<Object> store, String id, long revision, Reporter reporter) {
    CompletionStage<Done> done = store.upsertObject(id, revision, "v" + revision, "states");
    done.whenComplete((d, e) -> {
      if (e == null) {
        reporter.acknowledged("state:" + id + ":" + revision);
        upsert(store, id, revision + 1, reporter);
      }
    });
  }
}
