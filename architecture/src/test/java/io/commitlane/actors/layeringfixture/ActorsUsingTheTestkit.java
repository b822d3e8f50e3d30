package io.commitlane.actors.layeringfixture;

/** Breaks the actors layering rule on purpose, so LayeringTest can show the rule catches it. */
public final class ActorsUsingTheTestkit {
  public Class<?> testkit() {
    return io.commitlane.testkit.History.class;
  }
}
