package io.commitlane.testkit.pekko;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.testkit.StageControl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A database for one test, opened by {@link CommitlaneTest}, with a {@link StageControl} installed. */
public final class TestDatabase {
  private final CommitlaneDatabase database;
  private final StageControl control;
  private final Path dir;

  TestDatabase(CommitlaneDatabase database, StageControl control, Path dir) {
    this.database = database;
    this.control = control;
    this.dir = dir;
  }

  public CommitlaneDatabase database() {
    return database;
  }

  public StageControl control() {
    return control;
  }

  public Path directory() {
    return dir.resolve("db");
  }

  void closeAndDelete() throws IOException {
    control.close();
    database.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
