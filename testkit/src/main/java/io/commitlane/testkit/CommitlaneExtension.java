package io.commitlane.testkit;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.WriteGroupSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 integration. Test methods (and constructors) may take:
 * <ul>
 *   <li>{@link ActorTestKit}: one per test class, shut down after the class;
 *   <li>{@link TestDatabase}: a fresh {@link CommitlaneDatabase} in a new temporary directory,
 *       with a {@link StageControl} installed, closed and deleted after the test. Its merged
 *       write groups are off, so that barriers and schedules hold one commit, not its group.
 * </ul>
 *
 * <pre>{@code
 * @ExtendWith(CommitlaneExtension.class)
 * class OrderTest {
 *   @Test
 *   void smallCommitsOvertakeABigOne(TestDatabase db) { ... db.control().barrier(...) ... }
 * }
 * }</pre>
 */
public final class CommitlaneExtension implements ParameterResolver, AfterAllCallback {
  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(CommitlaneExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
    Class<?> type = p.getParameter().getType();
    return type == ActorTestKit.class || type == TestDatabase.class;
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext e) {
    ActorTestKit kit = testKit(e);
    if (p.getParameter().getType() == ActorTestKit.class) {
      return kit;
    }
    try {
      Path dir = Files.createTempDirectory("commitlane-test");
      // Merged write groups off: a schedule steps one commit at a time, and a commit held inside a
      // group would hold every member of it. Open a database yourself to test with groups.
      PipelineSettings settings = PipelineSettings.fromConfig(kit.system().settings().config())
          .withWriteGroups(WriteGroupSettings.off());
      TestDatabase db = new TestDatabase(CommitlaneDatabase.open(kit.system(), dir.resolve("db"), settings), dir);
      // Closed and deleted when the test ends (JUnit closes AutoCloseable values of its store).
      e.getStore(NS).put("db-" + p.getIndex() + "-" + System.identityHashCode(db), (AutoCloseable) db::closeAndDelete);
      return db;
    } catch (IOException ex) {
      throw new ParameterResolutionException("cannot create a temporary database directory", ex);
    }
  }

  @Override
  public void afterAll(ExtensionContext e) {
    ActorTestKit kit = e.getStore(NS).remove("testkit", ActorTestKit.class);
    if (kit != null) {
      kit.shutdownTestKit();
    }
  }

  private static ActorTestKit testKit(ExtensionContext e) {
    ExtensionContext classContext = e.getTestClass().isPresent() && e.getParent().isPresent() && e.getTestMethod().isPresent()
        ? e.getParent().get() : e;
    return classContext.getStore(NS).getOrComputeIfAbsent("testkit", k -> ActorTestKit.create(), ActorTestKit.class);
  }

  /** A database for one test, with stage control. */
  public static final class TestDatabase {
    private final CommitlaneDatabase database;
    private final StageControl control;
    private final Path dir;

    TestDatabase(CommitlaneDatabase database, Path dir) {
      this.database = database;
      this.control = StageControl.install(database.storage());
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
}
