package io.commitlane.bench.cli;

import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** The command as the user typed it ({@code ./commitlane compare --runs 3}), quoted for a shell: reports print it above their tables. */
public final class TypedCommand {
  private TypedCommand() {}

  public static String of(CommandSpec spec) {
    List<String> args = spec.commandLine().getParseResult() == null ? List.of() : spec.commandLine().getParseResult().originalArgs();
    if (!args.isEmpty() && args.get(0).equals(spec.name())) {
      args = args.subList(1, args.size()); // run as a subcommand: the parse saw the command's name too
    }
    StringBuilder sb = new StringBuilder("./commitlane ").append(spec.name());
    for (String a : args) {
      sb.append(' ').append(a.matches("[A-Za-z0-9_./,:=@+-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
    }
    return sb.toString();
  }
}
