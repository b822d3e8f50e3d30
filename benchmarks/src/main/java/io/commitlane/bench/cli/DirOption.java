package io.commitlane.bench.cli;

import io.commitlane.bench.harness.ContentionRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --dir}: where the databases go; a temporary directory (deleted afterwards) when not given. */
public final class DirOption {
  @Option(names = "--dir", description = "Directory for the databases (default: a temporary directory, deleted afterwards)")
  public Path dir;

  /** The directory to use: --dir, or a new temporary one named after {@code prefix}. */
  public Path root(String prefix) throws IOException {
    return dir != null ? Files.createDirectories(dir) : Files.createTempDirectory(prefix);
  }

  /** Deletes {@code root} if this run created it. */
  public void cleanUp(Path root) {
    if (dir == null) {
      ContentionRunner.deleteRecursively(root);
    }
  }
}
