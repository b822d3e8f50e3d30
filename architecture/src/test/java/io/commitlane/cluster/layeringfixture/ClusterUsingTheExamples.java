package io.commitlane.cluster.layeringfixture;

/** Breaks the rule that libraries never use the examples on purpose, so LayeringTest can show the rule catches it. */
public final class ClusterUsingTheExamples {
  public Class<?> example() {
    return io.commitlane.examples.layeringfixture.AnExample.class;
  }
}
