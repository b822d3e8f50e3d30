package io.commitlane.persistence.javadsl;

import io.commitlane.persistence.internal.state.DurableStates;
import io.commitlane.persistence.internal.plugin.PluginStart;
import io.commitlane.persistence.internal.query.Sources;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.persistence.query.DurableStateChange;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.javadsl.DurableStateStoreQuery;
import org.apache.pekko.persistence.state.javadsl.DurableStateUpdateStore;
import org.apache.pekko.persistence.state.javadsl.GetObjectResult;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The durable-state store, Java API: {@code DurableStateStoreRegistry.get(system).getDurableStateStoreFor(
 * CommitlaneDurableStateStore.class, "commitlane-persistence.state")}; {@code DurableStateBehavior} uses it through
 * {@code pekko.persistence.state.plugin}.
 *
 * <p>An upsert is one commit conditional on the stored revision: revision r stores only over revision r - 1 (or
 * nothing, for r = 1); otherwise it fails with {@link io.commitlane.persistence.RevisionConflictException} and changes
 * nothing. {@code deleteObject(id, revision)} leaves a tombstone at that revision (same rule, failing with Pekko's
 * {@code DeleteRevisionException}), seen by {@link #changes} as a {@code DeletedDurableState}; the revision goes on,
 * so the object can be created again at the next one. {@code changes(tag, offset)} emits the newest change of each
 * object with that tag, in commit order, resumable from the offset of the last change handled.
 */
public final class CommitlaneDurableStateStore<A> implements DurableStateUpdateStore<A>, DurableStateStoreQuery<A> {
  /** The plugin id of the store in reference.conf. */
  public static final String IDENTIFIER = "commitlane-persistence.state";

  private final PluginStart<DurableStates> start;

  /** Made by {@link io.commitlane.persistence.CommitlaneDurableStateStoreProvider}. */
  public CommitlaneDurableStateStore(PluginStart<DurableStates> start) {
    this.start = start;
  }

  @Override
  @SuppressWarnings("unchecked")
  public CompletionStage<GetObjectResult<A>> getObject(String persistenceId) {
    return start.with(s -> s.get(persistenceId)).thenApply(r -> new GetObjectResult<>((Optional<A>) r.value(), r.revision()));
  }

  @Override
  public CompletionStage<Done> upsertObject(String persistenceId, long revision, A value, String tag) {
    return start.with(s -> s.upsert(persistenceId, revision, value, tag));
  }

  /** Delete whatever revision is stored, leaving no tombstone (the next upsert is revision 1 again). */
  @Override
  @Deprecated
  public CompletionStage<Done> deleteObject(String persistenceId) {
    return start.with(s -> s.deleteWhatever(persistenceId));
  }

  @Override
  public CompletionStage<Done> deleteObject(String persistenceId, long revision) {
    return start.with(s -> s.delete(persistenceId, revision));
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Source<DurableStateChange<A>, NotUsed> currentChanges(String tag, Offset offset) {
    return (Source) Sources.of(start, s -> s.changes(tag, offset, false));
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Source<DurableStateChange<A>, NotUsed> changes(String tag, Offset offset) {
    return (Source) Sources.of(start, s -> s.changes(tag, offset, true));
  }
}
