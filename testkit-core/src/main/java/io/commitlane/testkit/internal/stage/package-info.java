/**
 * INTERNAL API. Bookkeeping behind StageControl: which commit executors the test's barriers and schedules hold. Entry
 * point: {@link io.commitlane.testkit.internal.stage.ExecutorHolds}, which lets a wait fail at once with
 * NoFreeExecutorException when it could only time out.
 */
package io.commitlane.testkit.internal.stage;
