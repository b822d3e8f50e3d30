package io.commitlane.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/**
 * One run of the command line in the test's JVM and what it printed: {@code out} is what went to
 * System.out (where the long-running commands print their progress and tables) followed by
 * picocli's out writer; {@code err} is picocli's err writer.
 */
public record CliRun(int code, String out, String err) {
  public static CliRun of(String... args) {
    // System.out is replaced before the command line is built: a command built on it keeps the stream it saw then.
    PrintStream original = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      CommandLine cli = Main.commandLine();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      cli.setOut(new PrintWriter(out, true));
      cli.setErr(new PrintWriter(err, true));
      int code = cli.execute(args);
      return new CliRun(code, printed.toString(StandardCharsets.UTF_8) + out, err.toString());
    } finally {
      System.setOut(original);
    }
  }

  /** How often {@code what} occurs in {@code text} (a command's report, its JSON). */
  public static int occurrences(String text, String what) {
    int n = 0;
    for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + what.length())) {
      n++;
    }
    return n;
  }
}
