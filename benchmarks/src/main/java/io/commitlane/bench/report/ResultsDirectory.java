package io.commitlane.bench.report;

import io.commitlane.bench.cli.Checks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/** Where a command writes its result files: {@code --out}, or {@code ./commitlane-results/<date-time>}. */
public final class ResultsDirectory {
  private ResultsDirectory() {}

  /** {@code out} (created if missing), or a new directory named after the time under {@code ./commitlane-results}. */
  public static Path create(Path out) {
    Path d = out != null ? out : Path.of("commitlane-results", DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(ZonedDateTime.now()));
    try {
      return Files.createDirectories(d);
    } catch (IOException e) {
      throw Checks.usage("--out: cannot create directory " + d + ": " + e);
    }
  }
}
