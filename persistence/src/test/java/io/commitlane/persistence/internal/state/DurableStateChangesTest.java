package io.commitlane.persistence.internal.state;

import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.query.FollowSource;
import io.commitlane.persistence.internal.query.WriteSignals;
import io.commitlane.persistence.internal.store.ConditionFailedException;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.store.Positions;
import io.commitlane.persistence.internal.store.StoreWrite;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.storage.KeyValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.query.DeletedDurableState;
import org.apache.pekko.persistence.query.DurableStateChange;
import org.apache.pekko.persistence.query.NoOffset;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.UpdatedDurableState;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Durable-state changes by tag while an object's newer revision is written but not yet settled: a query never skips
 * an object's change on the strength of a write that can still be taken back, so an offset saved after it loses
 * nothing.
 */
public class DurableStateChangesTest {
  private final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "changes");
  private final ExecutorService executor = Executors.newFixedThreadPool(2);
  private final MemoryStore store = new MemoryStore(executor);
  private final DurableStates states =
      new DurableStates(store, new PayloadCodec((ExtendedActorSystem) org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system)), 100);

  @AfterEach
  void stop() throws Exception {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
    executor.shutdownNow();
  }

  @Test
  void aChangeOverwrittenByARevisionThatIsTakenBackBeforeItSettlesIsStillEmitted() throws Exception {
    await(states.upsert("x", 1, "x-v1", "t"));
    await(states.upsert("y", 1, "y-v1", "t"));

    // x's revision 2 is in the store (readable) but not acknowledged: a crash can still take it back
    MemoryStore.Held held = store.holdNextWrite();
    CompletionStage<?> x2 = states.upsert("x", 2, "x-v2", "t");
    await(held.applied());
    CompletableFuture<Void> indexRead = store.onNextScan();

    CompletionStage<List<DurableStateChange<Object>>> current = run(states.changes("t", NoOffset.getInstance(), false));
    await(indexRead);       // the query read the change index while x's revision 2 was there, unacknowledged
    held.takeBack();        // as a crash would: revision 1 is x's state again and revision 2 never happened
    failure(x2);

    assertEquals(List.of("x:1:x-v1", "y:1:y-v1"), describe(await(current)),
        "x's revision 1 is still its state: a query that skipped it and went on to y would leave a projection that"
            + " saved y's offset without x for good");
    assertEquals(List.of("y:1:y-v1"), describe(await(run(states.changes("t", first(current), false)))),
        "resuming after x's offset emits exactly what followed it");
  }

  @Test
  void aChangeOverwrittenByARevisionThatSettlesIsEmittedOnceAtItsNewPosition() throws Exception {
    await(states.upsert("x", 1, "x-v1", "t"));
    await(states.upsert("y", 1, "y-v1", "t"));
    MemoryStore.Held held = store.holdNextWrite();
    CompletionStage<?> x2 = states.upsert("x", 2, "x-v2", "t");
    await(held.applied());
    CompletableFuture<Void> indexRead = store.onNextScan();

    CompletionStage<List<DurableStateChange<Object>>> live =
        Source.fromGraph(states.changes("t", NoOffset.getInstance(), true)).take(2).runWith(Sink.seq(), system);
    await(indexRead);
    held.release();
    await(x2);

    assertEquals(List.of("y:1:y-v1", "x:2:x-v2"), describe(await(live)),
        "x is emitted once, at the position of its newest revision, after y");
  }

  @Test
  void anUntaggedRevisionThatIsTakenBackDoesNotHideTheTaggedOneBeforeIt() throws Exception {
    await(states.upsert("x", 1, "x-v1", "t"));
    await(states.upsert("y", 1, "y-v1", "t"));
    MemoryStore.Held held = store.holdNextWrite();
    CompletionStage<?> x2 = states.upsert("x", 2, "x-v2", "");
    await(held.applied());
    CompletableFuture<Void> indexRead = store.onNextScan();

    CompletionStage<List<DurableStateChange<Object>>> current = run(states.changes("t", NoOffset.getInstance(), false));
    await(indexRead);
    held.takeBack();
    failure(x2);

    assertEquals(List.of("x:1:x-v1", "y:1:y-v1"), describe(await(current)));
  }

  @Test
  void aWholeRemovalThatIsTakenBackDoesNotHideTheObjectsChange() throws Exception {
    await(states.upsert("x", 1, "x-v1", "t"));
    await(states.upsert("y", 1, "y-v1", "t"));
    MemoryStore.Held held = store.holdNextWrite();
    CompletionStage<?> removed = states.deleteWhatever("x");
    await(held.applied());
    CompletableFuture<Void> indexRead = store.onNextScan();

    CompletionStage<List<DurableStateChange<Object>>> current = run(states.changes("t", NoOffset.getInstance(), false));
    await(indexRead);
    held.takeBack();
    failure(removed);

    assertEquals(List.of("x:1:x-v1", "y:1:y-v1"), describe(await(current)));
    await(states.deleteWhatever("x"));
    assertEquals(List.of("y:1:y-v1"), describe(await(run(states.changes("t", NoOffset.getInstance(), false)))),
        "a settled removal of the whole object leaves no change of it");
    assertEquals(0L, await(states.get("x")).revision(), "removed whole: the next upsert is revision 1");
    await(states.upsert("x", 1, "x-again", "t"));
    assertEquals(List.of("y:1:y-v1", "x:1:x-again"), describe(await(run(states.changes("t", NoOffset.getInstance(), false)))));
  }

  // ---- helpers --------------------------------------------------------------------------------

  private CompletionStage<List<DurableStateChange<Object>>> run(FollowSource<DurableStateChange<Object>> source) {
    return Source.fromGraph(source).runWith(Sink.seq(), system);
  }

  private static Offset first(CompletionStage<List<DurableStateChange<Object>>> changes) {
    return await(changes).get(0).offset();
  }

  private static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void failure(CompletionStage<?> stage) {
    try {
      stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
      throw new AssertionError("the taken-back write succeeded");
    } catch (java.util.concurrent.ExecutionException expected) {
      // failed, as a write that is taken back does
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static List<String> describe(List<DurableStateChange<Object>> changes) {
    List<String> out = new ArrayList<>();
    for (DurableStateChange<Object> c : changes) {
      if (c instanceof UpdatedDurableState<Object> u) {
        out.add(u.persistenceId() + ":" + u.revision() + ":" + u.value());
      } else if (c instanceof DeletedDurableState<Object> d) {
        out.add(d.persistenceId() + ":" + d.revision() + ":deleted");
      }
    }
    return out;
  }

  /** A {@link PluginStore} in memory whose next write the test can hold after it is applied, then release or take back. */
  static final class MemoryStore implements PluginStore {
    private final TreeMap<byte[], byte[]> data = new TreeMap<>(Arrays::compareUnsigned);
    private final Positions positions = new Positions(0, limit -> CompletableFuture.completedFuture(null));
    private final WriteSignals signals = new WriteSignals();
    private final ExecutorService executor;
    private Held hold;
    private CompletableFuture<Void> watchedScan;

    MemoryStore(ExecutorService executor) {
      this.executor = executor;
    }

    /** A write applied to the store whose outcome the test decides. */
    final class Held {
      private final CompletableFuture<Void> applied = new CompletableFuture<>();
      private CompletableFuture<Void> result;
      private Map<byte[], byte[]> before;

      CompletableFuture<Void> applied() {
        return applied;
      }

      void release() {
        result.complete(null);
      }

      void takeBack() {
        synchronized (MemoryStore.this) {
          before.forEach((k, v) -> {
            if (v == null) {
              data.remove(k);
            } else {
              data.put(k, v);
            }
          });
        }
        result.completeExceptionally(new IllegalStateException("taken back, as by a crash before it was acknowledged"));
      }
    }

    synchronized Held holdNextWrite() {
      hold = new Held();
      return hold;
    }

    /** Completes after the next range read returned. */
    synchronized CompletableFuture<Void> onNextScan() {
      watchedScan = new CompletableFuture<>();
      return watchedScan;
    }

    @Override
    public synchronized byte[] get(byte[] key) {
      return data.get(key);
    }

    @Override
    public synchronized List<byte[]> multiGet(List<byte[]> keys) {
      List<byte[]> out = new ArrayList<>();
      for (byte[] k : keys) {
        out.add(data.get(k));
      }
      return out;
    }

    @Override
    public List<KeyValue> scan(byte[] from, byte[] to, boolean reverse, int limit) {
      List<KeyValue> out;
      CompletableFuture<Void> watched;
      synchronized (this) {
        out = range(from, to, reverse, limit);
        watched = watchedScan;
        watchedScan = null;
      }
      if (watched != null) {
        watched.complete(null);
      }
      return out;
    }

    private List<KeyValue> range(byte[] from, byte[] to, boolean reverse, int limit) {
      Map<byte[], byte[]> range = to == null ? data.tailMap(from, true) : data.subMap(from, true, to, false);
      List<KeyValue> out = new ArrayList<>();
      for (Map.Entry<byte[], byte[]> e : range.entrySet()) {
        if (out.size() == limit) {
          break;
        }
        out.add(new KeyValue(e.getKey(), e.getValue()));
      }
      if (reverse) {
        java.util.Collections.reverse(out);
      }
      return out;
    }

    /** As a local store does: the write's positions are claimed before it applies and settle when it completes. */
    @Override
    public CompletionStage<Void> write(StoreWrite write) {
      return write.positions() == 0 ? apply(write, write.changes())
          : positions.during(write.positions(), first -> apply(write, write.resolved(first)));
    }

    private CompletionStage<Void> apply(StoreWrite write, List<StoreWrite.Change> changes) {
      CompletableFuture<Void> result = new CompletableFuture<>();
      Held held;
      synchronized (this) {
        for (StoreWrite.Expectation e : write.expectations()) {
          byte[] actual = data.get(e.key());
          if (!Arrays.equals(actual, e.value())) {
            return CompletableFuture.failedFuture(new ConditionFailedException(e.key(), actual));
          }
        }
        Map<byte[], byte[]> before = new TreeMap<>(Arrays::compareUnsigned);
        for (StoreWrite.Change c : changes) {
          if (!before.containsKey(c.key())) {
            before.put(c.key(), data.get(c.key()));
          }
          if (c.value() == null) {
            data.remove(c.key());
          } else {
            data.put(c.key(), c.value());
          }
        }
        held = hold;
        hold = null;
        if (held != null) {
          held.result = result;
          held.before = before;
        }
      }
      if (held == null) {
        executor.execute(() -> result.complete(null));
      } else {
        held.applied.complete(null);
      }
      return result;
    }

    @Override
    public Positions positions() {
      return positions;
    }

    @Override
    public WriteSignals signals() {
      return signals;
    }

    @Override
    public java.util.concurrent.Executor executor() {
      return executor;
    }

    @Override
    public long maxWriteBytes() {
      return 1L << 30;
    }

    @Override
    public String describe() {
      return "memory";
    }
  }
}
