package io.commitlane.bench.contention;

import com.typesafe.config.Config;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.harness.ContentionRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The actor system and the databases of one {@code bench} run, under the run's directory. Closing
 * closes the databases, stops the system and deletes the directory.
 */
final class BenchDatabases implements AutoCloseable {
  private final ActorSystem<Void> system;
  private final List<CommitlaneDatabase> databases = new ArrayList<>();
  private final Path cell;

  private BenchDatabases(ActorSystem<Void> system, Path cell) {
    this.system = system;
    this.cell = cell;
  }

  /** Starts a system and opens {@code count} databases with {@code settings}, {@code db-0} ... under {@code cell}. */
  static BenchDatabases open(Config config, PipelineSettings settings, int count, Path cell) throws Exception {
    BenchDatabases run = new BenchDatabases(BenchSystem.start("bench", config), cell);
    try {
      for (int d = 0; d < count; d++) {
        Path p = Files.createDirectories(cell.resolve("db-" + d));
        run.databases.add(Commitlane.get(run.system).open(p, settings));
      }
      return run;
    } catch (Throwable e) {
      try {
        run.close();
      } catch (Exception closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  ActorSystem<Void> system() {
    return system;
  }

  List<CommitlaneDatabase> databases() {
    return databases;
  }

  @Override
  public void close() throws Exception {
    try {
      for (CommitlaneDatabase db : databases) {
        db.close();
      }
    } finally {
      BenchSystem.stop(system);
      ContentionRunner.deleteRecursively(cell);
    }
  }
}
