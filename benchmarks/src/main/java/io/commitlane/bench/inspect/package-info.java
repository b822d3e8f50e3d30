/**
 * {@code ./commitlane inspect}: {@link io.commitlane.bench.inspect.InspectCommand} validates transaction logs.
 */
package io.commitlane.bench.inspect;
