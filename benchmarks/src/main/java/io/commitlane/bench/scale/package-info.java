/**
 * {@code ./commitlane scale}: {@link io.commitlane.bench.scale.ScaleCommand}, how commitlane's costs grow with the data.
 */
package io.commitlane.bench.scale;
