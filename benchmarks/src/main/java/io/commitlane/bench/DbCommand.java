package io.commitlane.bench;

import picocli.CommandLine.Command;

/** Maintenance of a database directory, without an actor system: {@code ./commitlane db compact DIR ...}. */
@Command(name = "db", mixinStandardHelpOptions = true,
    description = "Maintain a database directory (not open in another process). Exit code 0: done, 1: failed, 2: bad arguments.",
    subcommands = {DbCompactCommand.class})
final class DbCommand {}
