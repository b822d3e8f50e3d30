/**
 * The command line ({@code ./commitlane}): {@link io.commitlane.bench.Main} holds the subcommand list and the exit codes
 * (0 ok, 1 failed, 2 bad usage, 130 stopped by Ctrl-C); each subcommand lives in a package of its own beside the shared
 * {@code cli}, {@code harness}, {@code report}, {@code peers} and {@code dataset} packages.
 */
package io.commitlane.bench;
