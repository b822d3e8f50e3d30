package io.commitlane.persistence.scaladsl;

import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.persistence.query.DurableStateChange;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.scaladsl.DurableStateStoreQuery;
import org.apache.pekko.persistence.state.scaladsl.DurableStateUpdateStore;
import org.apache.pekko.persistence.state.scaladsl.GetObjectResult;
import org.apache.pekko.stream.scaladsl.Source;
import scala.concurrent.Future;
import scala.jdk.javaapi.FutureConverters;
import scala.jdk.javaapi.OptionConverters;

/**
 * The durable-state store, Scala API: the same store as {@link
 * io.commitlane.persistence.javadsl.CommitlaneDurableStateStore}, which it wraps.
 */
public final class CommitlaneDurableStateStore<A> implements DurableStateUpdateStore<A>, DurableStateStoreQuery<A> {
  private final io.commitlane.persistence.javadsl.CommitlaneDurableStateStore<A> java;

  public CommitlaneDurableStateStore(io.commitlane.persistence.javadsl.CommitlaneDurableStateStore<A> java) {
    this.java = java;
  }

  @Override
  public Future<GetObjectResult<A>> getObject(String persistenceId) {
    return FutureConverters.asScala(java.getObject(persistenceId)
        .thenApply(r -> new GetObjectResult<>(OptionConverters.toScala(r.value()), r.revision())));
  }

  @Override
  public Future<Done> upsertObject(String persistenceId, long revision, A value, String tag) {
    return FutureConverters.asScala(java.upsertObject(persistenceId, revision, value, tag));
  }

  @Override
  @Deprecated
  @SuppressWarnings("deprecation")
  public Future<Done> deleteObject(String persistenceId) {
    return FutureConverters.asScala(java.deleteObject(persistenceId));
  }

  @Override
  public Future<Done> deleteObject(String persistenceId, long revision) {
    return FutureConverters.asScala(java.deleteObject(persistenceId, revision));
  }

  @Override
  public Source<DurableStateChange<A>, NotUsed> currentChanges(String tag, Offset offset) {
    return java.currentChanges(tag, offset).asScala();
  }

  @Override
  public Source<DurableStateChange<A>, NotUsed> changes(String tag, Offset offset) {
    return java.changes(tag, offset).asScala();
  }
}
