package io.commitlane.cluster.layeringfixture;

/** Breaks the rule that libraries never use the testkit on purpose, so LayeringTest can show the rule catches it. */
public final class ClusterUsingTheTestkit {
  public Class<?> testkit() {
    return io.commitlane.testkit.History.class;
  }
}
