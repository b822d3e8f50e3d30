/**
 * The Pekko part of the testkit: {@link io.commitlane.testkit.pekko.CommitlaneTest} (JUnit 5) and
 * actor-level helpers. The Pekko-free part (stage control, barriers, schedules, history checker,
 * crash harness) is {@code io.commitlane.testkit} in commitlane-testkit-core.
 */
package io.commitlane.testkit.pekko;
