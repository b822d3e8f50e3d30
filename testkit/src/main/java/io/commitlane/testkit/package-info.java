/** The testkit: stage control, schedules, history checks and the kill -9 crash harness; see docs/testkit.md. */
package io.commitlane.testkit;
