package io.commitlane.persistence.layeringfixture;

/** Breaks the rule that the persistence plugins use the public Java API on purpose, so LayeringTest can show the rule catches it. */
public final class PersistenceUsingTheProtocol {
  public Class<?> protocol() {
    return io.commitlane.actors.DatabaseProtocol.class;
  }
}
