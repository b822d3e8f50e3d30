package io.commitlane.testkit.pekko;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * JUnit 5 support for tests of commitlane databases. On a test class (and, to override it, on a
 * test method), lets test methods and constructors take:
 * <ul>
 *   <li>{@code ActorTestKit}: one per test class, shut down after the class (also set into a static
 *       {@code ActorTestKit} field marked with Pekko's {@code @JUnit5TestKit});
 *   <li>{@link TestDatabase}: a fresh database in a new temporary directory with a {@code
 *       StageControl} installed, closed and deleted after the test. Its merged write groups are
 *       off, so that barriers and schedules hold one commit, not its group.
 * </ul>
 *
 * <pre>{@code
 * @CommitlaneTest(commitThreads = 2)
 * class OrderTest {
 *   @Test
 *   void smallCommitsOvertakeABigOne(TestDatabase db) { ... db.control().barrier(...) ... }
 *
 *   @Test
 *   @CommitlaneTest(commitThreads = 1, config = "commitlane.txlog.append = leaderless")
 *   void oneLaneKeepsDispatchOrder(TestDatabase db) { ... }
 * }
 * }</pre>
 *
 * <p>A commit that a barrier or schedule holds after {@code ADMITTED} occupies one of the
 * database's {@code commitThreads} executors. When the holds occupy all of them, a schedule step
 * or barrier wait for a queued commit fails at once with a {@code NoFreeExecutorException} that
 * says so, instead of timing out.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(CommitlaneTestExtension.class)
public @interface CommitlaneTest {
  /**
   * Commit executors of each {@link TestDatabase} ({@code commitlane.commit-threads}), 1..64.
   * Default 2, whatever the machine: a test that holds one commit still has an executor for the
   * next, on a 1-CPU runner too. 0 takes the setting from the actor system's config ({@code auto}
   * unless changed: one per CPU).
   */
  int commitThreads() default 2;

  /**
   * HOCON merged over the actor system's config, for example {@code "commitlane.txlog.append =
   * leaderless"}. On the class it also configures the class's {@code ActorTestKit}; on a method it
   * applies to that method's databases, over the class's. Set executors with {@link #commitThreads}, not here.
   */
  String config() default "";
}
