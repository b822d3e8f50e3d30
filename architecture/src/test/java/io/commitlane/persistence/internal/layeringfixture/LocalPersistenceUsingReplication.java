package io.commitlane.persistence.internal.layeringfixture;

/** Breaks the rule that local persistence carries no replication on purpose, so LayeringTest can show the rule catches it. */
public final class LocalPersistenceUsingReplication {
  public Class<?> replicated() {
    return io.commitlane.replication.ReplicatedDatabase.class;
  }
}
