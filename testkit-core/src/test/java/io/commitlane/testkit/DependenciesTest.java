package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * testkit-core is what storage's and actors' own tests use, so it must not need actors or Pekko:
 * neither is on its classpath (its test classpath holds every dependency it has).
 */
class DependenciesTest {
  @Test
  void neitherPekkoNorTheActorsModuleIsOnTheClasspath() {
    assertThrows(ClassNotFoundException.class, () -> Class.forName("org.apache.pekko.actor.typed.ActorSystem"));
    assertThrows(ClassNotFoundException.class, () -> Class.forName("io.commitlane.actors.CommitlaneDatabase"));
  }
}
