/**
 * INTERNAL API. Storage machinery, by role in the sub-packages ({@code commit}, {@code backup},
 * {@code files}, {@code rocks}); here only what every role shares: how keys and values are shown
 * in messages ({@link io.commitlane.storage.internal.PrintableBytes}).
 */
package io.commitlane.storage.internal;
