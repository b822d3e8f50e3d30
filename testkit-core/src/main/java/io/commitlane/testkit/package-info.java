/**
 * The Pekko-free testkit (commitlane-testkit-core): stage control, barriers, schedules, history
 * checker and crash harness on the storage API. See docs/testkit.md.
 */
package io.commitlane.testkit;
