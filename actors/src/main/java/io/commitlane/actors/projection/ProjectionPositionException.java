package io.commitlane.actors.projection;

import io.commitlane.storage.CommitlaneException;

/**
 * A projection's stored position cannot be used: it was stored by a projection of another log (a
 * position of one log means nothing in another), or it is not in a format this version wrote. The
 * projection stops and nothing is written. Give the projection another name, or delete its stored
 * position (key: its name, UTF-8, in the store {@link ProjectionSettings#offsetStore()}) to start
 * it over.
 */
public final class ProjectionPositionException extends CommitlaneException {
  private final String projection;

  public ProjectionPositionException(String projection, String message) {
    super("projection '" + projection + "': " + message);
    this.projection = projection;
  }

  public String projection() {
    return projection;
  }
}
