package io.commitlane.persistence.internal.query;

import io.commitlane.persistence.internal.plugin.PluginStart;
import io.commitlane.annotation.InternalApi;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/** INTERNAL API. A query's source, built once its plugin has started (or failing with the start's error). */
@InternalApi
public final class Sources {
  private Sources() {}

  public static <L, T> Source<T, NotUsed> of(PluginStart<L> start, Function<L, FollowSource<T>> query) {
    CompletionStage<Source<T, NotUsed>> source = start.with(logic -> {
      try {
        return CompletableFuture.completedFuture(Source.fromGraph(query.apply(logic)));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    });
    return Source.completionStageSource(source).mapMaterializedValue(m -> NotUsed.getInstance());
  }
}
