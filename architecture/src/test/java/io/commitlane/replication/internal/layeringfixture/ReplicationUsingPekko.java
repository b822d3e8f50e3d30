package io.commitlane.replication.internal.layeringfixture;

/** Breaks the rule that replication runs without Pekko on purpose, so LayeringTest can show the rule catches it. */
public final class ReplicationUsingPekko {
  public Object done() {
    return org.apache.pekko.Done.getInstance();
  }
}
