/** testkit: see the module README section. */
package io.commitlane.testkit;
