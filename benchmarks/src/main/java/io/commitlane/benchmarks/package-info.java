/** benchmarks: see the module README section. */
package io.commitlane.benchmarks;
