package io.commitlane.testkit;

import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

/**
 * Runs a property only in a soak run ({@code -Dsoak=true}): the long version of a
 * property whose shorter version the test suite runs on every build.
 *
 * <pre>{@code
 * mvn -B -o -pl testkit -am test -Dtest=RecoveryModelProperties -Dsurefire.failIfNoSpecifiedTests=false -Dsoak=true
 * }</pre>
 */
public class SoakOnly implements SkipExecutionHook {
  /**
   * The system property that turns a soak run on. Not under {@code commitlane.}: system properties
   * override the configuration, and the settings reader refuses a key it does not know there.
   */
  public static final String PROPERTY = "soak";

  /** Whether this is a soak run. */
  public static boolean soak() {
    return Boolean.getBoolean(PROPERTY);
  }

  @Override
  public SkipResult shouldBeSkipped(LifecycleContext context) {
    return soak() ? SkipResult.doNotSkip() : SkipResult.skip("the long version runs with -D" + PROPERTY + "=true");
  }
}
