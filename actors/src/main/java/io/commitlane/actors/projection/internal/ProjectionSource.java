package io.commitlane.actors.projection.internal;

import io.commitlane.actors.projection.ProjectionBatch;
import io.commitlane.actors.projection.ProjectionControl;
import io.commitlane.actors.projection.ProjectionHandler;
import io.commitlane.actors.projection.ProjectionSettings;
import io.commitlane.annotation.InternalApi;
import org.apache.pekko.stream.ActorAttributes;
import org.apache.pekko.stream.javadsl.Source;

/**
 * INTERNAL API. The runner of a projection over any {@link ProjectionStore}, as a source (see {@link
 * io.commitlane.actors.projection.Projection#source()}).
 */
@InternalApi
public final class ProjectionSource {
  private ProjectionSource() {}

  public static <R, T> Source<ProjectionBatch<R>, ProjectionControl> of(ProjectionStore<R, T> store, String name,
      ProjectionHandler<R, T> handler, ProjectionSettings settings) {
    return Source.fromGraph(new ProjectionStage<>(store, name, handler, settings))
        .addAttributes(ActorAttributes.dispatcher(settings.dispatcher()));
  }
}
