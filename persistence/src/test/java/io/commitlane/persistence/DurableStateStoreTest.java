package io.commitlane.persistence;

import static io.commitlane.persistence.PluginSystem.await;
import static io.commitlane.persistence.PluginSystem.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.persistence.javadsl.CommitlaneDurableStateStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.persistence.query.DeletedDurableState;
import org.apache.pekko.persistence.query.DurableStateChange;
import org.apache.pekko.persistence.query.NoOffset;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.UpdatedDurableState;
import org.apache.pekko.persistence.state.DurableStateStoreRegistry;
import org.apache.pekko.persistence.state.exception.DeleteRevisionException;
import org.apache.pekko.persistence.state.javadsl.GetObjectResult;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a durable-state TCK checks (Pekko 1.7 has none): upsert, get and delete with their revision rules, a stale
 * revision failing with nothing changed, changes by tag from an offset (also across a restart), deletion and
 * re-creation.
 */
class DurableStateStoreTest {
  @TempDir
  Path dir;
  private PluginSystem plugins;
  private CommitlaneDurableStateStore<Object> store;

  @BeforeEach
  void start() {
    plugins = new PluginSystem(dir.resolve("db"));
    store = storeOf(plugins);
  }

  @AfterEach
  void stop() {
    plugins.close();
  }

  @SuppressWarnings("unchecked")
  private static CommitlaneDurableStateStore<Object> storeOf(PluginSystem p) {
    return DurableStateStoreRegistry.get(p.system().classicSystem())
        .getDurableStateStoreFor(CommitlaneDurableStateStore.class, CommitlaneDurableStateStore.IDENTIFIER);
  }

  private GetObjectResult<Object> get(String id) {
    return await(store.getObject(id));
  }

  @Test
  void upsertGetAndDeleteFollowTheRevisions() {
    assertEquals(new GetObjectResult<>(Optional.empty(), 0L), get("cart-1"));
    await(store.upsertObject("cart-1", 1, "one item", ""));
    assertEquals(new GetObjectResult<>(Optional.of("one item"), 1L), get("cart-1"));
    await(store.upsertObject("cart-1", 2, "two items", ""));
    assertEquals(new GetObjectResult<>(Optional.of("two items"), 2L), get("cart-1"));

    await(store.deleteObject("cart-1", 3));
    assertEquals(new GetObjectResult<>(Optional.empty(), 3L), get("cart-1"), "a deletion keeps its revision");
    await(store.upsertObject("cart-1", 4, "created again", ""));
    assertEquals(new GetObjectResult<>(Optional.of("created again"), 4L), get("cart-1"));
  }

  @Test
  @SuppressWarnings("deprecation")
  void aDeleteWithoutRevisionRemovesTheObjectWhole() {
    await(store.upsertObject("cart-2", 1, "x", "carts"));
    await(store.deleteObject("cart-2"));
    assertEquals(new GetObjectResult<>(Optional.empty(), 0L), get("cart-2"));
    await(store.upsertObject("cart-2", 1, "again", "carts"));
    assertEquals(new GetObjectResult<>(Optional.of("again"), 1L), get("cart-2"));
    assertEquals(List.of("cart-2:1:again"), describe(await(store.currentChanges("carts", NoOffset.getInstance())
        .runWith(Sink.seq(), plugins.system()))));
  }

  @Test
  void aStaleRevisionFailsWithPekkosExceptionTypeAndChangesNothing() {
    await(store.upsertObject("cart-3", 1, "first", "carts"));

    Throwable again = failure(store.upsertObject("cart-3", 1, "second writer", "carts"));
    RevisionConflictException conflict = assertInstanceOf(RevisionConflictException.class, again);
    assertEquals(1, conflict.storedRevision());
    assertInstanceOf(org.apache.pekko.persistence.state.exception.DurableStateException.class, conflict);
    assertInstanceOf(RevisionConflictException.class, failure(store.upsertObject("cart-3", 3, "skipped one", "carts")));
    assertInstanceOf(DeleteRevisionException.class, failure(store.deleteObject("cart-3", 5)));
    assertInstanceOf(RevisionConflictException.class, failure(store.upsertObject("new-cart", 2, "not first", "")));

    assertEquals(new GetObjectResult<>(Optional.of("first"), 1L), get("cart-3"));
    assertEquals(new GetObjectResult<>(Optional.empty(), 0L), get("new-cart"));
    assertEquals(List.of("cart-3:1:first"), describe(await(store.currentChanges("carts", NoOffset.getInstance())
        .runWith(Sink.seq(), plugins.system()))));
  }

  @Test
  void concurrentUpsertsOfOneRevisionLetExactlyOneThrough() {
    List<CompletionStage<Done>> writes = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      writes.add(store.upsertObject("contended", 1, "writer-" + i, "t"));
    }
    int ok = 0;
    for (CompletionStage<Done> w : writes) {
      try {
        await(w);
        ok++;
      } catch (RevisionConflictException e) {
        // the others lose
      }
    }
    assertEquals(1, ok);
    assertEquals(1L, get("contended").revision());
  }

  @Test
  void changesByTagResumeFromAnOffsetWithNoGapAndNoDuplicate() {
    for (String id : List.of("a", "b", "c")) {
      await(store.upsertObject(id, 1, id + "-v1", "carts"));
    }
    await(store.upsertObject("other", 1, "x", "other-tag"));
    List<DurableStateChange<Object>> all = await(store.currentChanges("carts", NoOffset.getInstance())
        .runWith(Sink.seq(), plugins.system()));
    assertEquals(List.of("a:1:a-v1", "b:1:b-v1", "c:1:c-v1"), describe(all));

    Offset afterA = all.get(0).offset();
    assertEquals(List.of("b:1:b-v1", "c:1:c-v1"), describe(await(store.currentChanges("carts", afterA)
        .runWith(Sink.seq(), plugins.system()))));

    // a changes again and b is deleted: each object's newest change comes after c's, in commit order
    await(store.upsertObject("a", 2, "a-v2", "carts"));
    await(store.deleteObject("b", 2));
    Offset afterC = all.get(2).offset();
    assertEquals(List.of("a:2:a-v2", "b:2:deleted"), describe(await(store.currentChanges("carts", afterC)
        .runWith(Sink.seq(), plugins.system()))));
  }

  @Test
  void liveChangesArriveAsTheyCommitAndResumeAfterARestart() {
    await(store.upsertObject("a", 1, "v1", "live"));
    CompletionStage<List<DurableStateChange<Object>>> live = store.changes("live", NoOffset.getInstance()).take(3)
        .runWith(Sink.seq(), plugins.system());
    await(store.upsertObject("b", 1, "v1", "live"));
    await(store.upsertObject("c", 1, "v1", "live"));
    List<DurableStateChange<Object>> seen = await(live);
    assertEquals(List.of("a:1:v1", "b:1:v1", "c:1:v1"), describe(seen));

    Offset saved = seen.get(1).offset();
    plugins.close();
    plugins = new PluginSystem(dir.resolve("db"));
    store = storeOf(plugins);
    await(store.upsertObject("d", 1, "v1", "live"));
    assertEquals(List.of("c:1:v1", "d:1:v1"), describe(await(store.currentChanges("live", saved)
        .runWith(Sink.seq(), plugins.system()))));
    assertEquals(new GetObjectResult<>(Optional.of("v1"), 1L), get("c"));
  }

  @Test
  void badInputFailsWithATypedErrorAndStoresNothing() {
    assertInstanceOf(InvalidNameException.class, failure(store.upsertObject("bad-\uD800-id", 1, "x", "")));
    assertInstanceOf(InvalidNameException.class, failure(store.upsertObject("", 1, "x", "")));
    assertInstanceOf(InvalidNameException.class, failure(store.upsertObject("ok", 1, "x", "bad-\uDC00-tag")));
    assertInstanceOf(IllegalArgumentException.class, failure(store.upsertObject("ok", 0, "x", "")));
    Throwable unserializable = failure(store.upsertObject("ok", 1, new Object(), ""));
    assertTrue(unserializable.getMessage() != null, "a serializer's error says why: " + unserializable);
    assertEquals(new GetObjectResult<>(Optional.empty(), 0L), get("ok"));
    await(store.upsertObject("ok", 1, "fine", ""));
    assertEquals(new GetObjectResult<>(Optional.of("fine"), 1L), get("ok"));
  }

  static List<String> describe(List<DurableStateChange<Object>> changes) {
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

}
